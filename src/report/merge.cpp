#include "report/merge.hpp"

#include <fmt/format.h>
#include <boost/json/array.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <utility>

#include "bench/cost.hpp"
#include "bench/summary_json.hpp"

namespace infergate::report {

namespace json = boost::json;

namespace {

// The configuration fields that must agree for runs to be pooled.
constexpr const char* kWorkloadFields[] = {"model",  "endpoint", "input_tokens", "output_tokens", "prompts",
                                           "stream", "turns",    "batch",        "load"};

// Workers of one run start within moments of each other; results a day apart are not one run (and
// would stretch the merged time series over every second between them).
constexpr double kMostSecondsApart = 86400;

// The prices every document's cost was figured at, when each has one (workers given --price or
// --hourly-cost); throws std::runtime_error when they differ.
std::optional<bench::Pricing> priced_alike(const std::vector<RunDocument>& documents) {
  std::optional<bench::Pricing> pricing;
  for (const auto& d : documents) {
    const auto* cost = d.raw.if_contains("cost");
    if (cost == nullptr || !cost->is_object()) {
      return std::nullopt;
    }
    try {
      const bench::Pricing own = bench::pricing_from_cost_json(cost->get_object());
      if (pricing && (own.input_per_million != pricing->input_per_million ||
                      own.output_per_million != pricing->output_per_million || own.hourly != pricing->hourly)) {
        throw std::runtime_error("its cost has other prices than another's; merge only workers of one run");
      }
      pricing = own;
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(fmt::format("{}: {}", d.path, e.what()));
    }
  }
  return pricing;
}

// The token rate pooled workers sustained together: the sum of their steady states' where each
// had one, else the pooled run's (what a single run is priced by, bench/timeline.hpp).
double sustained_rate(const std::vector<RunDocument>& documents, const bench::BenchSummary& pooled) {
  const bool prompts = bench::prompt_only(pooled);
  double sum = 0;
  for (const auto& d : documents) {
    if (!d.steady) {
      return bench::token_throughput(pooled);
    }
    sum += prompts ? d.steady->input_tokens_per_s : d.steady->output_tokens_per_s;
  }
  return sum;
}

// The SLOs every document's goodput was held to, when each has one (workers given --slo).
std::optional<std::vector<bench::Slo>> held_to(const std::vector<RunDocument>& documents) {
  for (const auto& d : documents) {
    const auto* goodput = d.raw.if_contains("goodput");
    if (goodput == nullptr || !goodput->is_object()) {
      return std::nullopt;
    }
  }
  try {
    return bench::goodput_slos(documents.front().raw.at("goodput").as_object());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("{}: {}", documents.front().path, e.what()));
  }
}

// The run's goodput pooled, or with `model`, that model's, from its entry of each by_model.
bench::Goodput pooled_goodput(const std::vector<RunDocument>& documents, const std::string* model,
                              const bench::BenchSummary& pooled, const std::vector<bench::Slo>& slos) {
  const std::string held = bench::slo_list(slos);
  std::vector<bench::Goodput> parts;
  for (const auto& d : documents) {
    const json::value* goodput = d.raw.if_contains("goodput");
    if (model != nullptr) {
      const auto* by_model = d.raw.if_contains("by_model");
      const auto* own = by_model && by_model->is_object() ? by_model->get_object().if_contains(*model) : nullptr;
      if (own == nullptr) {
        continue;  // nor is it in that model's pooled summary
      }
      goodput = own->is_object() ? own->get_object().if_contains("goodput") : nullptr;
    }
    try {
      if (goodput == nullptr || !goodput->is_object()) {
        throw std::runtime_error(model != nullptr ? fmt::format("its {} has no goodput, though the run's has", *model)
                                                  : std::string("its goodput is not an object"));
      }
      const std::string own = bench::slo_list(bench::goodput_slos(goodput->get_object()));
      if (own != held) {
        throw std::runtime_error(
            fmt::format("its goodput was held to {}, another's to {}; merge only workers of one run", own, held));
      }
      parts.push_back(bench::goodput_from_json(goodput->get_object()));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(fmt::format("{}: {}", d.path, e.what()));
    }
  }
  return bench::pool_goodputs(parts, pooled, slos);
}

}  // namespace

bench::BenchSummary merge_summaries(const std::vector<bench::BenchSummary>& parts, Pooling pooling) {
  bench::BenchSummary m;
  // Any part's --percentiles: the merged histograms give each one exactly, whoever asked for it.
  std::vector<double> more;
  for (const auto& p : parts) {
    for (const bench::Quantile& q : p.ttft_ms.more) {
      more.push_back(q.p);
    }
  }
  std::sort(more.begin(), more.end());
  more.erase(std::unique(more.begin(), more.end()), more.end());
  bench::Stat worst_lag;
  for (const double p : more) {
    worst_lag.more.push_back({p, 0});
  }
  std::uint64_t from_usage = 0;
  std::uint64_t from_events = 0;
  for (const auto& p : parts) {
    m.completed += p.completed;
    m.failed += p.failed;
    m.output_tokens += p.output_tokens;
    m.prompt_tokens += p.prompt_tokens;
    m.requested_input_tokens += p.requested_input_tokens;
    m.requested_output_tokens += p.requested_output_tokens;
    m.other_output_lengths += p.other_output_lengths;
    m.text_events += p.text_events;
    m.tool_call_answers += p.tool_call_answers;
    if (pooling == Pooling::concurrent) {
      m.duration_s = std::max(m.duration_s, p.duration_s);
      m.requests_per_s += p.requests_per_s;
      m.output_tokens_per_s += p.output_tokens_per_s;
      m.total_tokens_per_s += p.total_tokens_per_s;
    } else {
      m.duration_s += p.duration_s;
    }
    m.ttft_hist.merge(p.ttft_hist);
    m.tpot_hist.merge(p.tpot_hist);
    m.itl_hist.merge(p.itl_hist);
    m.e2e_hist.merge(p.e2e_hist);
    const bench::Stat& lag = p.scheduling_lag_ms;
    worst_lag.count += lag.count;
    worst_lag.mean = std::max(worst_lag.mean, lag.mean);
    worst_lag.p50 = std::max(worst_lag.p50, lag.p50);
    worst_lag.p90 = std::max(worst_lag.p90, lag.p90);
    worst_lag.p95 = std::max(worst_lag.p95, lag.p95);
    worst_lag.p99 = std::max(worst_lag.p99, lag.p99);
    worst_lag.max = std::max(worst_lag.max, lag.max);
    for (bench::Quantile& q : worst_lag.more) {
      q.value = std::max(q.value, lag.at(q.p).value_or(lag.max));  // a part without it: its max bounds it
    }
    from_usage += p.token_source == "usage" ? 1 : 0;
    from_events += p.token_source == "events" ? 1 : 0;
    for (const auto& [cls, failure] : p.failures) {
      auto& f = m.failures[cls];
      f.count += failure.count;
      for (const auto& e : failure.examples) {
        f.add_example(e);
      }
    }
  }
  if (pooling == Pooling::sequential && m.duration_s > 0) {
    m.requests_per_s = static_cast<double>(m.completed) / m.duration_s;
    m.output_tokens_per_s = static_cast<double>(m.output_tokens) / m.duration_s;
    m.total_tokens_per_s = static_cast<double>(m.output_tokens + m.prompt_tokens) / m.duration_s;
  }
  m.token_source = from_usage == parts.size() ? "usage" : from_events == parts.size() ? "events" : "mixed";
  m.ttft_ms = m.ttft_hist.stat(more);
  m.tpot_ms = m.tpot_hist.stat(more);
  m.itl_ms = m.itl_hist.stat(more);
  m.e2e_ms = m.e2e_hist.stat(more);
  // Lag has no histogram: each figure is the worst part's, which says whether a client fell behind.
  m.scheduling_lag_ms = worst_lag;
  return m;
}

bench::ModelSummaries merge_model_summaries(const std::vector<bench::ModelSummaries>& parts, Pooling pooling) {
  std::vector<std::pair<std::string, std::vector<bench::BenchSummary>>> by_name;
  for (const bench::ModelSummaries& part : parts) {
    for (const auto& model : part) {
      auto it = std::find_if(by_name.begin(), by_name.end(), [&](const auto& p) { return p.first == model.first; });
      if (it == by_name.end()) {
        it = by_name.insert(by_name.end(), {model.first, {}});
      }
      it->second.push_back(model.second);
    }
  }
  bench::ModelSummaries merged;
  for (const auto& [name, summaries] : by_name) {
    merged.emplace_back(name, merge_summaries(summaries, pooling));
  }
  return merged;
}

json::object merge_documents(const std::vector<RunDocument>& documents) {
  if (documents.empty()) {
    throw std::runtime_error("nothing to merge");
  }
  const RunDocument& first = documents.front();
  std::vector<bench::BenchSummary> parts;
  parts.reserve(documents.size());
  json::array sources;
  for (const auto& d : documents) {
    if (d.kind != RunDocument::Kind::single) {
      throw std::runtime_error(
          fmt::format("{}: only single runs merge (this one is a sweep or repeated runs)", d.path));
    }
    for (const char* field : kWorkloadFields) {
      const auto* a = first.config.if_contains(field);
      const auto* b = d.config.if_contains(field);
      if ((a == nullptr) != (b == nullptr) || (a != nullptr && *a != *b)) {
        throw std::runtime_error(
            fmt::format("{} and {} ran different workloads ('{}' differs); merge only workers of "
                        "one run",
                        first.path, d.path, field));
      }
    }
    parts.push_back(d.summary);
    sources.emplace_back(d.path);
  }
  const bench::BenchSummary merged = merge_summaries(parts, Pooling::concurrent);
  json::object config = first.config;
  config["merged_from"] = std::move(sources);
  config["label"] = first.label;
  json::object extra;
  // Time series add second by second, each shifted by how much later than the first it started.
  double origin_ms = 0;
  bool have_origin = false;
  for (const auto& d : documents) {
    if (const auto* at = d.config.if_contains("started_at_ms"); at && at->is_number()) {
      origin_ms = have_origin ? std::min(origin_ms, at->to_number<double>()) : at->to_number<double>();
      have_origin = true;
    }
  }
  std::vector<double> in_flight;
  std::vector<double> tokens;
  std::vector<double> input_tokens;
  for (const auto& d : documents) {
    if (!d.series) {
      continue;
    }
    double shift_s = 0;
    if (const auto* at = d.config.if_contains("started_at_ms"); at && at->is_number() && have_origin) {
      shift_s = std::round((at->to_number<double>() - origin_ms) / 1000.0);
    }
    if (shift_s > kMostSecondsApart) {
      throw std::runtime_error(
          fmt::format("{} started {:g} s after {}; merge only workers of one run", d.path, shift_s, first.path));
    }
    const auto shift = static_cast<std::size_t>(shift_s);
    const std::size_t n = shift + d.series->t_s.size();
    in_flight.resize(std::max(in_flight.size(), n), 0);
    tokens.resize(std::max(tokens.size(), n), 0);
    input_tokens.resize(std::max(input_tokens.size(), n), 0);
    for (std::size_t i = 0; i < d.series->t_s.size(); ++i) {
      in_flight[shift + i] += d.series->in_flight[i];
      tokens[shift + i] += d.series->output_tokens_per_s[i];
      input_tokens[shift + i] += i < d.series->input_tokens_per_s.size() ? d.series->input_tokens_per_s[i] : 0;
    }
  }
  if (!in_flight.empty()) {
    json::array t;
    json::array flight;
    json::array out;
    json::array in;
    for (std::size_t i = 0; i < in_flight.size(); ++i) {
      t.emplace_back(static_cast<double>(i));
      flight.emplace_back(in_flight[i]);
      out.emplace_back(tokens[i]);
      in.emplace_back(input_tokens[i]);
    }
    extra["timeseries"] = json::object{{"interval_s", 1.0},
                                       {"t_s", std::move(t)},
                                       {"in_flight", std::move(flight)},
                                       {"output_tokens", std::move(out)},
                                       {"input_tokens", std::move(in)}};
  }
  std::vector<bench::ModelSummaries> models;
  models.reserve(documents.size());
  for (const auto& d : documents) {
    models.push_back(d.by_model);
  }
  if (const std::optional<bench::Pricing> pricing = priced_alike(documents)) {
    extra["cost"] =
        bench::cost_json(*pricing, bench::measure_cost(*pricing, merged, sustained_rate(documents, merged)));
  }
  const std::optional<std::vector<bench::Slo>> slos = held_to(documents);
  if (slos) {
    extra["goodput"] = bench::goodput_json(pooled_goodput(documents, nullptr, merged, *slos), *slos);
  }
  if (const bench::ModelSummaries by_model = merge_model_summaries(models, Pooling::concurrent); !by_model.empty()) {
    std::vector<bench::Goodput> goodputs;
    for (const auto& [name, summary] : by_model) {
      if (slos) {
        goodputs.push_back(pooled_goodput(documents, &name, summary, *slos));
      }
    }
    extra["by_model"] = bench::model_breakdown_json(by_model, goodputs, slos.value_or(std::vector<bench::Slo>{}));
  }
  return bench::summary_document(config, &merged, extra);
}

}  // namespace infergate::report
