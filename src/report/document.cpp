#include "report/document.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "bench/cost.hpp"
#include "bench/slo.hpp"
#include "bench/summary_json.hpp"
#include "core/json_error.hpp"
#include "core/json_fields.hpp"
#include "report/merge.hpp"

namespace infergate::report {

namespace json = boost::json;

namespace {

std::vector<double> numbers(const json::object& o, std::string_view key) {
  std::vector<double> out;
  if (const auto* v = o.if_contains(key); v && v->is_array()) {
    out.reserve(v->get_array().size());
    for (const auto& x : v->get_array()) {
      out.push_back(x.is_number() ? x.to_number<double>() : 0.0);
    }
  }
  return out;
}

std::optional<SteadyRates> steady_rates(const json::object& holder) {
  const auto* steady = holder.if_contains("steady_state");
  if (steady == nullptr || !steady->is_object()) {
    return std::nullopt;
  }
  const auto* summary = steady->get_object().if_contains("summary");
  if (summary == nullptr || !summary->is_object()) {
    return std::nullopt;
  }
  const auto* output = summary->get_object().if_contains("output_tokens_per_s");
  if (output == nullptr || !output->is_number()) {
    return std::nullopt;
  }
  const auto* total = summary->get_object().if_contains("total_tokens_per_s");
  const double out = output->to_number<double>();
  return SteadyRates{out, total && total->is_number() ? total->to_number<double>() - out : 0};
}

std::vector<std::optional<double>> optional_numbers(const json::object& o, std::string_view key) {
  std::vector<std::optional<double>> out;
  if (const auto* v = o.if_contains(key); v && v->is_array()) {
    out.reserve(v->get_array().size());
    for (const auto& x : v->get_array()) {
      out.push_back(x.is_number() ? std::optional(x.to_number<double>()) : std::nullopt);
    }
  }
  return out;
}

Series read_series(const json::object& o) {
  Series s;
  if (const auto* server = o.if_contains("server"); server && server->is_object()) {
    const auto& g = server->get_object();
    ServerSeries series{numbers(g, "t_s"), optional_numbers(g, "waiting"), optional_numbers(g, "running"),
                        optional_numbers(g, "kv_cache_usage")};
    series.waiting.resize(series.t_s.size());
    series.running.resize(series.t_s.size());
    series.kv_cache_usage.resize(series.t_s.size());
    s.server = std::move(series);
  }
  s.t_s = numbers(o, "t_s");
  s.in_flight = numbers(o, "in_flight");
  const double interval =
      o.contains("interval_s") && o.at("interval_s").is_number() && o.at("interval_s").to_number<double>() > 0
          ? o.at("interval_s").to_number<double>()
          : 1.0;
  for (double tokens : numbers(o, "output_tokens")) {
    s.output_tokens_per_s.push_back(tokens / interval);
  }
  for (double tokens : numbers(o, "input_tokens")) {
    s.input_tokens_per_s.push_back(tokens / interval);
  }
  s.ttft_ms = optional_numbers(o, "ttft_ms");
  s.in_flight.resize(s.t_s.size(), 0);
  s.output_tokens_per_s.resize(s.t_s.size(), 0);
  if (!s.input_tokens_per_s.empty()) {
    s.input_tokens_per_s.resize(s.t_s.size(), 0);
  }
  s.ttft_ms.resize(s.t_s.size());
  return s;
}

// The goodput and the cost's headline that `holder` (a run, a point) has; a damaged one is read
// as none, so that the rest of the report still is.
Extras extras_of(const json::object& holder) {
  Extras extras;
  try {
    if (const auto* goodput = holder.if_contains("goodput"); goodput && goodput->is_object()) {
      extras.goodput_requests_per_s = bench::goodput_from_json(goodput->get_object()).requests_per_s;
    }
  } catch (const std::runtime_error&) {
    extras.goodput_requests_per_s.reset();
  }
  try {
    if (const auto* cost = holder.if_contains("cost"); cost && cost->is_object()) {
      extras.usd_per_million_tokens = bench::headline_per_million(bench::cost_from_json(cost->get_object()));
    }
  } catch (const std::runtime_error&) {
    extras.usd_per_million_tokens.reset();
  }
  return extras;
}

void read_levels(const json::object& holder, RunDocument& d) {
  for (const auto& p : array_at(holder, "points")) {
    const auto& o = as_object(p, "a point");
    Level level;
    level.level = number_at(o, "level");
    level.summary = bench::summary_from_json(object_at(o, "summary"));
    level.steady = steady_rates(o);
    if (const auto* goodput = o.if_contains("goodput"); goodput && goodput->is_object()) {
      level.slo_met = bool_at(goodput->get_object(), "met");
    }
    if (const auto* by_model = o.if_contains("by_model")) {
      level.by_model = bench::model_breakdown_from_json(*by_model);
    }
    level.extras = extras_of(o);
    d.levels.push_back(std::move(level));
  }
  if (d.levels.empty()) {
    throw std::runtime_error("no points were measured");
  }
}

std::optional<std::size_t> level_index(const RunDocument& d, double level) {
  for (std::size_t i = 0; i < d.levels.size(); ++i) {
    if (d.levels[i].level == level) {
      return i;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string default_label(const json::object& config, const std::string& path) {
  if (const auto* label = config.if_contains("label"); label && label->is_string() && !label->get_string().empty()) {
    return std::string(label->get_string());
  }
  return std::filesystem::path(path).stem().string();
}

RunDocument document_from_json(const json::value& value, const std::string& label) {
  if (!value.is_object()) {
    throw std::runtime_error("not a JSON object");
  }
  const auto& o = value.get_object();
  const auto* schema = o.if_contains("schema");
  if (schema == nullptr || !schema->is_string() || schema->get_string() != "infergate.bench/1") {
    throw std::runtime_error(
        "not an infergate bench result (schema infergate.bench/1); write one with "
        "infergate bench --json FILE");
  }
  RunDocument d;
  d.raw = o;
  d.label = label;
  if (const auto* config = o.if_contains("config"); config && config->is_object()) {
    d.config = config->get_object();
  }
  if (const auto* series = o.if_contains("timeseries"); series && series->is_object()) {
    d.series = read_series(series->get_object());
  }
  if (const auto* sweep = o.if_contains("sweep"); sweep && sweep->is_object()) {
    const auto& s = sweep->get_object();
    d.kind = RunDocument::Kind::sweep;
    read_levels(s, d);
    d.level_kind = s.contains("kind") && s.at("kind").is_string() ? std::string(s.at("kind").get_string()) : "";
    if (const auto* rule = s.if_contains("knee_rule"); rule && rule->is_string()) {
      d.knee_rule = rule->get_string();
    }
    if (const auto* knee = s.if_contains("knee"); knee && knee->is_object()) {
      d.knee = level_index(d, number_at(knee->get_object(), "level"));
    }
    const std::size_t shown = d.knee.value_or(d.levels.size() - 1);
    d.summary = d.levels[shown].summary;
    d.steady = d.levels[shown].steady;
    d.by_model = d.levels[shown].by_model;
    d.extras = d.levels[shown].extras;
    d.summary_of = fmt::format("{} {:g}{}", d.level_kind, d.levels[shown].level, d.knee ? " (the knee)" : " (highest)");
  } else if (const auto* search = o.if_contains("max_load"); search && search->is_object()) {
    const auto& s = search->get_object();
    d.kind = RunDocument::Kind::max_load;
    read_levels(s, d);
    // "rate", or "speed" for a replayed trace's (older results name no kind: rates).
    const auto* kind = s.if_contains("kind");
    d.level_kind = kind && kind->is_string() && kind->get_string() == "speed" ? "speed" : "rate";
    std::optional<std::size_t> shown;
    if (const auto* found = s.if_contains(d.level_kind); found && found->is_number()) {
      shown = level_index(d, found->to_number<double>());
    }
    d.knee = shown;
    d.summary = d.levels[shown.value_or(0)].summary;
    d.steady = d.levels[shown.value_or(0)].steady;
    d.by_model = d.levels[shown.value_or(0)].by_model;
    d.extras = d.levels[shown.value_or(0)].extras;
    d.summary_of = shown ? fmt::format("{} {:g} (the max load)", d.level_kind, d.levels[*shown].level)
                         : fmt::format("the lowest {}", d.level_kind);
  } else if (const auto* runs = o.if_contains("runs"); runs && runs->is_object()) {
    const auto& r = runs->get_object();
    d.kind = RunDocument::Kind::runs;
    std::vector<bench::BenchSummary> parts;
    SteadyRates steady_sum;
    std::size_t steady_count = 0;
    std::vector<bench::ModelSummaries> models;
    for (const auto& run : array_at(r, "runs")) {
      const auto& o = as_object(run, "a run");
      parts.push_back(bench::summary_from_json(object_at(o, "summary")));
      if (const auto* by_model = o.if_contains("by_model")) {
        models.push_back(bench::model_breakdown_from_json(*by_model));
      }
      if (auto rates = steady_rates(o)) {
        steady_sum.output_tokens_per_s += rates->output_tokens_per_s;
        steady_sum.input_tokens_per_s += rates->input_tokens_per_s;
        ++steady_count;
      }
    }
    d.summary = merge_summaries(parts, Pooling::sequential);
    d.by_model = merge_model_summaries(models, Pooling::sequential);
    if (steady_count > 0) {
      const auto n = static_cast<double>(steady_count);
      d.steady = SteadyRates{steady_sum.output_tokens_per_s / n, steady_sum.input_tokens_per_s / n};
    }
    d.summary_of = fmt::format("{} runs pooled", parts.size());
    if (const auto* figures = r.if_contains("figures"); figures && figures->is_object()) {
      d.runs_figures = figures->get_object();
    }
    auto mean_of = [&](std::string_view name) -> std::optional<double> {
      const auto* figure = d.runs_figures.if_contains(name);
      const auto* mean = figure && figure->is_object() ? figure->get_object().if_contains("mean") : nullptr;
      return mean && mean->is_number() ? std::optional(mean->to_number<double>()) : std::nullopt;
    };
    d.extras = Extras{mean_of("goodput_requests_per_s"), mean_of("usd_per_million_tokens")};
  } else if (const auto* summary = o.if_contains("summary"); summary && summary->is_object()) {
    d.summary = bench::summary_from_json(*summary);
    d.steady = steady_rates(o);
    d.extras = extras_of(o);
    d.summary_of = "the run";
    if (const auto* by_model = o.if_contains("by_model")) {
      d.by_model = bench::model_breakdown_from_json(*by_model);
    }
  } else {
    throw std::runtime_error("it holds no summary, runs, sweep or max_load");
  }
  return d;
}

std::vector<RunDocument> read_documents(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error(fmt::format("cannot open '{}'", path));
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string error;
  const json::value value = parse_json(text.str(), error);
  if (!error.empty()) {
    throw std::runtime_error(fmt::format("{}: not valid JSON ({})", path, error));
  }
  auto read = [&](const json::value& v) {
    const json::object empty;
    const auto* config = v.is_object() ? v.get_object().if_contains("config") : nullptr;
    RunDocument d =
        document_from_json(v, default_label(config && config->is_object() ? config->get_object() : empty, path));
    d.path = path;
    return d;
  };
  try {
    std::vector<RunDocument> documents;
    const auto* targets = value.is_object() ? value.get_object().if_contains("targets") : nullptr;
    if (targets != nullptr && targets->is_array()) {
      for (const auto& t : targets->get_array()) {
        documents.push_back(read(t));
      }
    } else {
      documents.push_back(read(value));
    }
    return documents;
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace infergate::report
