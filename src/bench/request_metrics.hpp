#pragma once
// Per-request metrics exactly as docs/metrics.md defines them.
#include <cstdint>
#include <optional>
#include <vector>

#include "bench/request_record.hpp"

namespace infergate::bench {

struct RequestMetrics {
  double ttft_ms = 0;             // due time -> first text-carrying event
  double e2e_ms = 0;              // due time -> last byte
  std::optional<double> tpot_ms;  // (E2E - TTFT) / (output tokens - 1), with at least 2 tokens
  std::int64_t output_tokens = 0;
  bool tokens_from_usage = false;  // false: counted from text events
};

// Needs a successful record with at least one text event. Appends the request's inter-token
// latencies to `itl_ms`: each gap between text events divided over the tokens the later event
// carried (the same number each when the token count divides evenly over the events, otherwise
// shared out by text length).
RequestMetrics measure_request(const RequestRecord& record, std::vector<double>& itl_ms);

}  // namespace infergate::bench
