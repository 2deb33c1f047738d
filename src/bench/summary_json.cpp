#include "bench/summary_json.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <stdexcept>

#include "core/json_fields.hpp"

namespace infergate::bench {

namespace json = boost::json;

json::object stat_json(const Stat& s) {
  json::object o{{"count", s.count}, {"mean", s.mean}, {"p50", s.p50}, {"p90", s.p90},
                 {"p95", s.p95},     {"p99", s.p99},   {"max", s.max}, {"min", s.min}};
  for (const Quantile& q : s.more) {
    o[percentile_key(q.p)] = q.value;
  }
  return o;
}

namespace {

json::object client_json(const ClientCheck& c) {
  return json::object{
      {"wall_s", c.load.wall_s},
      {"loop_busy", c.load.loop_busy ? json::value(*c.load.loop_busy) : json::value(nullptr)},
      {"cpu", c.load.cpu},
      {"scheduling_lag_p99_ms", c.lag_p99_ms},
      {"bound", c.bound},
      {"reason", c.reason},
  };
}

}  // namespace

json::object summary_json(const BenchSummary& s) {
  json::object failures;
  for (const auto& [cls, failure] : s.failures) {
    json::array examples;
    for (const auto& e : failure.examples) {
      examples.emplace_back(e);
    }
    failures[cls] = json::object{{"count", failure.count}, {"examples", std::move(examples)}};
  }
  return json::object{
      {"completed", s.completed},
      {"failed", s.failed},
      {"duration_s", s.duration_s},
      {"requests_per_s", s.requests_per_s},
      {"output_tokens_per_s", s.output_tokens_per_s},
      {"total_tokens_per_s", s.total_tokens_per_s},
      {"output_tokens", s.output_tokens},
      {"prompt_tokens", s.prompt_tokens},
      {"requested_input_tokens", s.requested_input_tokens},
      {"requested_output_tokens", s.requested_output_tokens},
      {"other_output_lengths", s.other_output_lengths},
      {"text_events", s.text_events},
      {"tool_call_answers", s.tool_call_answers},
      {"token_source", s.token_source},
      {"ttft_ms", stat_json(s.ttft_ms)},
      {"tpot_ms", stat_json(s.tpot_ms)},
      {"itl_ms", stat_json(s.itl_ms)},
      {"e2e_ms", stat_json(s.e2e_ms)},
      {"scheduling_lag_ms", stat_json(s.scheduling_lag_ms)},
      {"failures", std::move(failures)},
      {"client", s.client ? json::value(client_json(*s.client)) : json::value(nullptr)},
      {"histograms", json::object{{"ttft_ms", s.ttft_hist.to_json()},
                                  {"tpot_ms", s.tpot_hist.to_json()},
                                  {"itl_ms", s.itl_hist.to_json()},
                                  {"e2e_ms", s.e2e_hist.to_json()}}},
  };
}

Stat stat_from_json(const json::value& value) {
  if (!value.is_object()) {
    throw std::runtime_error("a statistic must be an object");
  }
  const auto& o = value.get_object();
  Stat s;
  s.count = static_cast<std::size_t>(count_at(o, "count"));
  s.mean = number_at(o, "mean");
  s.min = number_at(o, "min");
  s.p50 = number_at(o, "p50");
  s.p90 = number_at(o, "p90");
  s.p95 = number_at(o, "p95");
  s.p99 = number_at(o, "p99");
  s.max = number_at(o, "max");
  for (const auto& [key, figure] : o) {
    if (const auto p = percentile_of_key(key); p && !is_standard_percentile(*p) && figure.is_number()) {
      s.more.push_back({*p, figure.to_number<double>()});
    }
  }
  std::sort(s.more.begin(), s.more.end(), [](const Quantile& a, const Quantile& b) { return a.p < b.p; });
  return s;
}

BenchSummary summary_from_json(const json::value& value) {
  if (!value.is_object()) {
    throw std::runtime_error("a summary must be an object");
  }
  const auto& o = value.get_object();
  BenchSummary s;
  s.completed = static_cast<std::uint64_t>(count_at(o, "completed"));
  s.failed = static_cast<std::uint64_t>(count_at(o, "failed"));
  s.duration_s = number_at(o, "duration_s");
  s.requests_per_s = number_at(o, "requests_per_s");
  s.output_tokens_per_s = number_at(o, "output_tokens_per_s");
  s.total_tokens_per_s = number_at(o, "total_tokens_per_s");
  s.output_tokens = count_at(o, "output_tokens");
  s.prompt_tokens = count_at(o, "prompt_tokens");
  s.requested_input_tokens = count_at(o, "requested_input_tokens");
  s.requested_output_tokens = count_at(o, "requested_output_tokens");
  s.other_output_lengths = static_cast<std::uint64_t>(count_at(o, "other_output_lengths"));
  s.text_events = count_at(o, "text_events");
  // Results written before tool calls were counted have none.
  s.tool_call_answers = o.contains("tool_call_answers") ? count_at(o, "tool_call_answers") : 0;
  if (const auto* source = o.if_contains("token_source"); source && source->is_string()) {
    s.token_source = source->get_string();
  }
  s.ttft_ms = stat_from_json(object_at(o, "ttft_ms"));
  s.tpot_ms = stat_from_json(object_at(o, "tpot_ms"));
  s.itl_ms = stat_from_json(object_at(o, "itl_ms"));
  s.e2e_ms = stat_from_json(object_at(o, "e2e_ms"));
  s.scheduling_lag_ms = stat_from_json(object_at(o, "scheduling_lag_ms"));
  const auto& histograms = object_at(o, "histograms");
  s.ttft_hist = LogHistogram::from_json(object_at(histograms, "ttft_ms"));
  s.tpot_hist = LogHistogram::from_json(object_at(histograms, "tpot_ms"));
  s.itl_hist = LogHistogram::from_json(object_at(histograms, "itl_ms"));
  s.e2e_hist = LogHistogram::from_json(object_at(histograms, "e2e_ms"));
  for (const auto& [cls, failure] : object_at(o, "failures")) {
    FailureClass f;
    if (failure.is_object()) {
      f.count = static_cast<std::uint64_t>(count_at(failure.get_object(), "count"));
      if (const auto* examples = failure.get_object().if_contains("examples"); examples && examples->is_array()) {
        for (const auto& e : examples->get_array()) {
          if (e.is_string()) {
            f.examples.emplace_back(e.get_string());
          }
        }
      }
    }
    s.failures[std::string(cls)] = std::move(f);
  }
  return s;
}

json::object summary_document(const json::object& config, const BenchSummary* summary, const json::object& extra) {
  json::object document{{"schema", "infergate.bench/1"}, {"config", config}};
  if (summary != nullptr) {
    document["summary"] = summary_json(*summary);
  }
  for (const auto& [key, value] : extra) {
    document[key] = value;
  }
  return document;
}

}  // namespace infergate::bench
