#include "report/tables.hpp"

#include <fmt/format.h>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cmath>

#include "report/level_columns.hpp"
#include "report/model_tables.hpp"

namespace infergate::report {

namespace {

const char* kind_name(RunDocument::Kind kind) {
  switch (kind) {
    case RunDocument::Kind::single:
      return "run";
    case RunDocument::Kind::runs:
      return "runs";
    case RunDocument::Kind::sweep:
      return "sweep";
    case RunDocument::Kind::max_load:
      return "max_load";
  }
  return "?";
}

std::string with_interval(const Figure& f) {
  if (!f.interval) {
    return format_number(f.value);
  }
  return fmt::format("{} ({}–{})", format_number(f.value), format_number(f.interval->low),
                     format_number(f.interval->high));
}

std::string versus(const Comparison& c, std::size_t doc, std::size_t fig) {
  if (doc == 0 || !c.ratio[doc][fig]) {
    return "";
  }
  return fmt::format(" {:.2f}x{}", *c.ratio[doc][fig], c.differs[doc][fig] ? " *" : "");
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) {
    return text;
  }
  std::string quoted = "\"";
  for (char ch : text) {
    quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  }
  return quoted + "\"";
}

std::string config_value(const boost::json::object& config, std::string_view key) {
  const auto* v = config.if_contains(key);
  if (v == nullptr || v->is_null()) {
    return "-";
  }
  if (v->is_string()) {
    return std::string(v->get_string());
  }
  if (v->is_number()) {
    return format_number(v->to_number<double>());
  }
  return boost::json::serialize(*v);
}

// "| first | a | b |" and its rule line.
std::string markdown_header(std::string_view first, const std::vector<std::string>& labels) {
  std::string md = fmt::format("| {} |", first);
  std::string rule = "|---|";
  for (const auto& label : labels) {
    md += fmt::format(" {} |", label);
    rule += "---|";
  }
  return md + "\n" + rule + "\n";
}

constexpr const char* kConfigRows[] = {"base_url",    "model",    "endpoint",     "load",
                                       "concurrency", "rate",     "input_tokens", "output_tokens",
                                       "turns",       "requests", "seed",         "extra_body"};

// The --percentiles any run or level of `documents` holds, ascending, each once: the CSV's columns,
// left empty on a row that was not asked for one.
std::vector<double> any_percentiles(const std::vector<RunDocument>& documents) {
  std::vector<double> all;
  auto add = [&](const bench::BenchSummary& s) {
    for (const bench::Quantile& q : s.ttft_ms.more) {
      all.push_back(q.p);
    }
  };
  for (const auto& d : documents) {
    add(d.summary);
    for (const auto& level : d.levels) {
      add(level.summary);
    }
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

}  // namespace

std::string format_number(double value) {
  const double magnitude = std::abs(value);
  if (magnitude >= 100 || value == std::floor(value)) {
    return fmt::format("{:.1f}", value);
  }
  if (magnitude >= 1) {
    return fmt::format("{:.2f}", value);
  }
  return fmt::format("{:.3f}", value);
}

std::string markdown_cell(const std::string& text) {
  std::string cell;
  for (const char c : text) {
    if (c == '|') {
      cell += '\\';
    }
    cell += c;
  }
  return cell;
}

void print_comparison(std::FILE* out, const Comparison& c) {
  std::vector<std::size_t> widths(c.labels.size(), 0);
  std::vector<std::vector<std::string>> cells(c.labels.size());
  for (std::size_t d = 0; d < c.labels.size(); ++d) {
    widths[d] = c.labels[d].size();
    for (std::size_t f = 0; f < c.figures[d].size(); ++f) {
      cells[d].push_back(with_interval(c.figures[d][f]) + versus(c, d, f));
      widths[d] = std::max(widths[d], cells[d].back().size());
    }
  }
  fmt::print(out, "  {:<22}", "figure (95% interval)");
  for (std::size_t d = 0; d < c.labels.size(); ++d) {
    fmt::print(out, "  {:<{}}", c.labels[d], widths[d]);
  }
  fmt::print(out, "\n");
  for (std::size_t f = 0; f < c.figures.front().size(); ++f) {
    fmt::print(out, "  {:<22}", c.figures.front()[f].title);
    for (std::size_t d = 0; d < c.labels.size(); ++d) {
      fmt::print(out, "  {:<{}}", cells[d][f], widths[d]);
    }
    fmt::print(out, "\n");
  }
  if (c.labels.size() > 1) {
    fmt::print(out, "  ratios are to {}; * marks a difference larger than both runs' 95% intervals\n",
               c.labels.front());
  }
  for (const std::string& caution : c.cautions) {
    fmt::print(out, "  WARNING {}\n", caution);
  }
}

std::string markdown_report(const std::vector<RunDocument>& documents) {
  const Comparison c = compare(documents);
  std::string md = "## infergate bench report\n\n" + markdown_header("figure (95% interval)", c.labels);
  for (std::size_t f = 0; f < c.figures.front().size(); ++f) {
    md += fmt::format("| {} |", c.figures.front()[f].title);
    for (std::size_t d = 0; d < c.labels.size(); ++d) {
      md += fmt::format(" {}{} |", with_interval(c.figures[d][f]), versus(c, d, f));
    }
    md += "\n";
  }
  if (c.labels.size() > 1) {
    md += fmt::format("\nRatios are to {}; * marks a difference larger than both runs' 95% intervals.\n",
                      c.labels.front());
  }
  for (const std::string& caution : c.cautions) {
    md += fmt::format("\n**Warning**: {}.\n", caution);
  }
  md += "\n### Configuration\n\n" + markdown_header("", c.labels);
  for (const char* key : kConfigRows) {
    md += fmt::format("| {} |", key);
    for (const auto& d : documents) {
      md += fmt::format(" {} |", markdown_cell(config_value(d.config, key)));
    }
    md += "\n";
  }
  md += "| summary of |";
  for (const auto& d : documents) {
    md += fmt::format(" {} |", d.summary_of);
  }
  md += "\n";
  for (const auto& d : documents) {
    if (d.levels.empty()) {
      continue;
    }
    const LevelColumns columns = level_columns(d);
    std::string heads;
    std::string rules;
    for (const LatencyColumn& c : columns.latencies) {
      heads += fmt::format(" {} |", c.title);
      rules += "---|";
    }
    md += fmt::format("\n### {}: {} by {}\n\n| {} | req/s | {} |{} failed | |\n|---|---|---|{}---|---|\n", d.label,
                      d.kind == RunDocument::Kind::sweep ? "sweep" : "max-load search", d.level_kind, d.level_kind,
                      columns.rate_title, heads, rules);
    for (std::size_t i = 0; i < d.levels.size(); ++i) {
      const auto& s = d.levels[i].summary;
      const char* mark = d.knee == i ? (d.kind == RunDocument::Kind::sweep ? "knee" : "max load") : "";
      std::string cells;
      for (const LatencyColumn& c : columns.latencies) {
        cells += fmt::format(" {} |", format_number(c.of(s)));
      }
      md += fmt::format("| {:g} | {} | {} |{} {} | {} |\n", d.levels[i].level, format_number(s.requests_per_s),
                        format_number(columns.rate(s)), cells, s.failed, mark);
    }
    if (!d.knee_rule.empty()) {
      md += fmt::format("\n{}\n", d.knee_rule);
    }
  }
  for (const auto& d : documents) {
    md += markdown_model_table(d);
  }
  return md;
}

std::string csv_report(const std::vector<RunDocument>& documents) {
  const std::vector<double> more = any_percentiles(documents);
  std::string csv =
      "label,kind,level,model,completed,failed,requests_per_s,output_tokens_per_s,steady_output_tokens_per_s,"
      "input_tokens_per_s,steady_input_tokens_per_s";
  for (const char* metric : {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"}) {
    for (const char* stat : {"mean", "p50", "p90", "p95", "p99"}) {
      csv += fmt::format(",{}_{}", metric, stat);
    }
    for (const double p : more) {
      csv += fmt::format(",{}_{}", metric, bench::percentile_key(p));
    }
    csv += fmt::format(",{}_max", metric);
  }
  csv += ",goodput_requests_per_s,usd_per_million_tokens,knee\n";
  auto row = [&](const RunDocument& d, const std::string& level, const std::string& model, const bench::BenchSummary& s,
                 const std::optional<SteadyRates>& steady, const Extras& extras, bool knee) {
    auto steady_rate = [&](double SteadyRates::*rate) {
      return steady ? fmt::format("{}", *steady.*rate) : std::string();
    };
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{}", csv_field(d.label), kind_name(d.kind), level,
                       csv_field(model), s.completed, s.failed, s.requests_per_s, s.output_tokens_per_s,
                       steady_rate(&SteadyRates::output_tokens_per_s), bench::input_token_rate(s),
                       steady_rate(&SteadyRates::input_tokens_per_s));
    for (const bench::Stat* st : {&s.ttft_ms, &s.tpot_ms, &s.itl_ms, &s.e2e_ms}) {
      csv += fmt::format(",{},{},{},{},{}", st->mean, st->p50, st->p90, st->p95, st->p99);
      for (const double p : more) {
        const std::optional<double> value = st->at(p);
        csv += value ? fmt::format(",{}", *value) : std::string(",");
      }
      csv += fmt::format(",{}", st->max);
    }
    for (const std::optional<double>& extra : {extras.goodput_requests_per_s, extras.usd_per_million_tokens}) {
      csv += extra ? fmt::format(",{}", *extra) : std::string(",");
    }
    csv += knee ? ",1\n" : ",0\n";
  };
  // A mixed-model load's row (model empty) is followed by one row a model, over its own requests.
  auto rows = [&](const RunDocument& d, const std::string& level, const bench::BenchSummary& s,
                  const std::optional<SteadyRates>& steady, const Extras& extras, const bench::ModelSummaries& by_model,
                  bool knee) {
    row(d, level, "", s, steady, extras, knee);
    for (const auto& [model, own] : by_model) {
      row(d, level, model, own, std::nullopt, Extras{}, knee);
    }
  };
  for (const auto& d : documents) {
    if (d.levels.empty()) {
      rows(d, "", d.summary, d.steady, d.extras, d.by_model, false);
      continue;
    }
    for (std::size_t i = 0; i < d.levels.size(); ++i) {
      const Level& l = d.levels[i];
      rows(d, fmt::format("{}", l.level), l.summary, l.steady, l.extras, l.by_model, d.knee == i);
    }
  }
  return csv;
}

}  // namespace infergate::report
