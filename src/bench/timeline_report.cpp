#include "bench/timeline_report.hpp"

#include <fmt/format.h>
#include <boost/json/array.hpp>

#include "bench/summary_json.hpp"

namespace infergate::bench {

namespace json = boost::json;

namespace {

constexpr const char* kSteadyRule =
    "steady state: from when requests in flight first reach 90% of their time-weighted median while "
    "sending (and one request has finished) to the last time they fall below it; requests sent and "
    "finished inside the window, tokens that arrived inside it";

json::object phase_json(const PhaseSpan& phase) {
  return json::object{
      {"duration_s", phase.duration_s}, {"requests", phase.requests}, {"ttft_ms", stat_json(phase.ttft_ms)}};
}

template <class T>
json::array column(const std::vector<T>& values) {
  json::array out;
  out.reserve(values.size());
  for (const auto& v : values) {
    out.emplace_back(v);
  }
  return out;
}

}  // namespace

void print_steady_state(std::FILE* out, const std::optional<SteadyState>& steady) {
  if (!steady) {
    fmt::print(out, "  steady state  none: no request ran wholly after the first wave (raise --requests)\n");
    return;
  }
  const BenchSummary& s = steady->summary;
  const std::string rates =
      prompt_only(s) ? fmt::format("{:.1f} input tok/s, TTFT p50/p99 {:.1f}/{:.1f} ms", s.total_tokens_per_s,
                                   s.ttft_ms.p50, s.ttft_ms.p99)
                     : fmt::format(
                           "{:.1f} output tok/s, TTFT p50/p99 {:.1f}/{:.1f} ms, TPOT "
                           "p50/p99 {:.2f}/{:.2f} ms",
                           s.output_tokens_per_s, s.ttft_ms.p50, s.ttft_ms.p99, s.tpot_ms.p50, s.tpot_ms.p99);
  fmt::print(out, "  steady state  {:.2f}-{:.2f} s at {:.1f} in flight (level {:g}): {} requests, {}\n",
             steady->start_s, steady->end_s, steady->mean_in_flight, steady->level, s.completed + s.failed, rates);
  fmt::print(out, "                ramp-up {:.2f} s ({} requests, TTFT p50 {:.1f} ms), drain {:.2f} s ({} requests)\n",
             steady->ramp_up.duration_s, steady->ramp_up.requests, steady->ramp_up.ttft_ms.p50,
             steady->drain.duration_s, steady->drain.requests);
}

json::object steady_state_json(const SteadyState& steady) {
  return json::object{
      {"rule", kSteadyRule},
      {"level", steady.level},
      {"start_s", steady.start_s},
      {"end_s", steady.end_s},
      {"mean_in_flight", steady.mean_in_flight},
      {"summary", summary_json(steady.summary)},
      {"ramp_up", phase_json(steady.ramp_up)},
      {"drain", phase_json(steady.drain)},
  };
}

json::object time_series_json(const TimeSeries& series) {
  json::array ttft;
  ttft.reserve(series.ttft_ms.size());
  for (const auto& v : series.ttft_ms) {
    ttft.emplace_back(v ? json::value(*v) : json::value(nullptr));
  }
  return json::object{
      {"interval_s", series.interval_s},
      {"t_s", column(series.t_s)},
      {"in_flight", column(series.in_flight)},
      {"output_tokens", column(series.output_tokens)},
      {"input_tokens", column(series.input_tokens)},
      {"started", column(series.started)},
      {"completed", column(series.completed)},
      {"failed", column(series.failed)},
      {"ttft_ms", std::move(ttft)},
  };
}

json::object server_series_json(const std::vector<ServerSample>& samples, std::int64_t origin_ns) {
  json::array t;
  json::array waiting;
  json::array running;
  json::array kv;
  auto optional = [](const std::optional<double>& v) { return v ? json::value(*v) : json::value(nullptr); };
  for (const auto& s : samples) {
    t.emplace_back(static_cast<double>(s.ns - origin_ns) / 1e9);
    waiting.push_back(optional(s.waiting));
    running.push_back(optional(s.running));
    kv.push_back(optional(s.kv_cache_usage));
  }
  return json::object{{"t_s", std::move(t)},
                      {"waiting", std::move(waiting)},
                      {"running", std::move(running)},
                      {"kv_cache_usage", std::move(kv)}};
}

void print_server_series(std::FILE* out, const std::vector<ServerSample>& samples,
                         const std::optional<std::string>& error) {
  fmt::print(out, "  server        {}\n", describe_server_peaks(samples, error));
}

std::string describe_server_peaks(const std::vector<ServerSample>& samples, const std::optional<std::string>& error) {
  if (samples.empty()) {
    return fmt::format("no metrics read{}", error ? ": " + *error : "");
  }
  auto peak = [&](std::optional<double> ServerSample::*field, double scale, const char* unit) {
    std::optional<double> top;
    for (const auto& s : samples) {
      if (s.*field) {
        top = std::max(top.value_or(0), *(s.*field) * scale);
      }
    }
    return top ? fmt::format("{:.4g}{}", *top, unit) : std::string("not exported");
  };
  return fmt::format("peaks over {} samples: {} waiting, {} running, KV cache {}{}", samples.size(),
                     peak(&ServerSample::waiting, 1, ""), peak(&ServerSample::running, 1, ""),
                     peak(&ServerSample::kv_cache_usage, 100, "% used"),
                     error ? " (some reads failed: " + *error + ")" : "");
}

}  // namespace infergate::bench
