#pragma once
// The steady state and the per-second series as the table and the JSON show them.
#include <boost/json/object.hpp>

#include <cstdio>
#include <optional>

#include "bench/server_metrics.hpp"
#include "bench/timeline.hpp"

namespace infergate::bench {

// One line with the window, its throughput and p50/p99 latencies, or why there is none.
void print_steady_state(std::FILE* out, const std::optional<SteadyState>& steady);

// {"rule", "level", "start_s", "end_s", "mean_in_flight", "summary", "ramp_up", "drain"}.
boost::json::object steady_state_json(const SteadyState& steady);
// Columns: {"interval_s", "t_s": [...], "in_flight": [...], ...}; a missing TTFT is null.
boost::json::object time_series_json(const TimeSeries& series);

// Samples of the server's gauges on the run's time axis (seconds from `origin_ns`, the first due
// time): {"t_s": [...], "waiting": [...], "running": [...], "kv_cache_usage": [...]}, null where a
// gauge was not exported.
boost::json::object server_series_json(const std::vector<ServerSample>& samples, std::int64_t origin_ns);
// One line: the peaks of the server's queue, batch and KV-cache use, or why there are none.
void print_server_series(std::FILE* out, const std::vector<ServerSample>& samples,
                         const std::optional<std::string>& error);
// "peaks over 5 samples: 0 waiting, 8 running, KV cache 6.7% used", or why there are none.
std::string describe_server_peaks(const std::vector<ServerSample>& samples, const std::optional<std::string>& error);

}  // namespace infergate::bench
