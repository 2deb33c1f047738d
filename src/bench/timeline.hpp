#pragma once
// A run seen over time: a per-second series, and the steady state (the stretch where the number
// of requests in flight stays near its level, with the ramp-up before it and the drain after it
// reported apart). Derived from the records after the run.
#include <cstdint>
#include <optional>
#include <vector>

#include "bench/request_record.hpp"
#include "bench/summary.hpp"

namespace infergate::bench {

// Columns of equal length, one row per second from the first request's due time.
struct TimeSeries {
  double interval_s = 1.0;
  std::vector<double> t_s;            // start of each interval
  std::vector<double> in_flight;      // time-averaged requests in flight
  std::vector<double> output_tokens;  // tokens whose events arrived in the interval
  // Prompt tokens of the answered requests sent in the interval (the steady state counts them so too).
  std::vector<double> input_tokens;
  std::vector<std::uint64_t> started;
  std::vector<std::uint64_t> completed;
  std::vector<std::uint64_t> failed;
  std::vector<std::optional<double>> ttft_ms;  // mean over first tokens that arrived in the interval
};

struct PhaseSpan {
  double duration_s = 0;
  std::uint64_t requests = 0;
  Stat ttft_ms;
};

// The rule (docs/bench-json.md): the level is the time-weighted median of requests in flight while
// requests are still being sent. The steady window opens when in-flight first reaches 90% of the
// level and at least one request has finished (so the first synchronised wave is ramp-up), and
// closes the last time in-flight is at 90% of the level. Its requests are those sent and finished
// inside it; its throughput counts the tokens that arrived inside it, from every request.
struct SteadyState {
  double level = 0;
  double start_s = 0;  // from the first due time
  double end_s = 0;
  double mean_in_flight = 0;
  BenchSummary summary;  // latencies of its requests; throughput over the window
  PhaseSpan ramp_up;     // requests sent before the window
  PhaseSpan drain;       // requests sent inside it that finished after it
};

constexpr double kSteadyFraction = 0.9;

// The output rate the endpoint sustained: the steady state's where there is one, else the run's.
inline double sustained_output_rate(const BenchSummary& run, const std::optional<SteadyState>& steady) {
  return steady ? steady->summary.output_tokens_per_s : run.output_tokens_per_s;
}

// The rate of the tokens a run is priced by (see measure_cost): output tokens/s, or input tokens/s
// for a run that generated nothing; the steady state's where there is one.
inline double sustained_token_rate(const BenchSummary& run, const std::optional<SteadyState>& steady) {
  return steady ? token_throughput(steady->summary) : token_throughput(run);
}

TimeSeries time_series(const std::vector<RequestRecord>& records, double interval_s = 1.0);

// Absent when no request lies wholly inside a window (too few requests for the concurrency).
std::optional<SteadyState> steady_state(const std::vector<RequestRecord>& records);

}  // namespace infergate::bench
