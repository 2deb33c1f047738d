#pragma once
// One reading of a server's Prometheus gauges (--server-metrics, bench/server_metrics.hpp).
#include <cstdint>
#include <optional>

namespace infergate::bench {

struct ServerSample {
  std::int64_t ns = 0;  // CLOCK_MONOTONIC when the answer arrived
  std::optional<double> waiting;
  std::optional<double> running;
  std::optional<double> kv_cache_usage;  // 0 to 1
};

}  // namespace infergate::bench
