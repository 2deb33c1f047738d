#include "bench/summary_json.hpp"

#include <fmt/format.h>
#include <boost/json/serialize.hpp>

#include <fstream>
#include <stdexcept>

namespace infergate::bench {

namespace json = boost::json;

json::object stat_json(const Stat& s) {
  return json::object{{"count", s.count}, {"mean", s.mean}, {"p50", s.p50}, {"p90", s.p90},
                      {"p95", s.p95},     {"p99", s.p99},   {"max", s.max}, {"min", s.min}};
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
      {"text_events", s.text_events},
      {"token_source", s.token_source},
      {"ttft_ms", stat_json(s.ttft_ms)},
      {"tpot_ms", stat_json(s.tpot_ms)},
      {"itl_ms", stat_json(s.itl_ms)},
      {"e2e_ms", stat_json(s.e2e_ms)},
      {"scheduling_lag_ms", stat_json(s.scheduling_lag_ms)},
      {"failures", std::move(failures)},
      {"client", s.client ? json::value(client_json(*s.client)) : json::value(nullptr)},
  };
}

void write_summary_json(const std::string& path, const json::object& config, const BenchSummary* summary,
                        const json::object& extra) {
  std::ofstream out(path);
  if (!out) {
    throw std::runtime_error(fmt::format("cannot write '{}'", path));
  }
  json::object document{{"schema", "infergate.bench/1"}, {"config", config}};
  if (summary != nullptr) {
    document["summary"] = summary_json(*summary);
  }
  for (const auto& [key, value] : extra) {
    document[key] = value;
  }
  out << json::serialize(document) << "\n";
  if (!out) {
    throw std::runtime_error(fmt::format("writing '{}' failed", path));
  }
}

}  // namespace infergate::bench
