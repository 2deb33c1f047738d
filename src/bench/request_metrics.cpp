#include "bench/request_metrics.hpp"

#include <algorithm>
#include <cmath>

namespace infergate::bench {

RequestMetrics measure_request(const RequestRecord& record, std::vector<double>& itl_ms) {
  RequestMetrics m;
  const auto& events = record.text_events;
  m.ttft_ms = static_cast<double>(record.first_token_ns - record.due_ns) / 1e6;
  m.e2e_ms = static_cast<double>(record.last_byte_ns - record.due_ns) / 1e6;
  m.tokens_from_usage = record.usage.has_value() && record.usage->completion_tokens > 0;
  m.output_tokens = m.tokens_from_usage ? record.usage->completion_tokens : static_cast<std::int64_t>(events.size());
  if (m.output_tokens >= 2) {
    m.tpot_ms = (m.e2e_ms - m.ttft_ms) / static_cast<double>(m.output_tokens - 1);
  }
  if (events.size() < 2) {
    return m;
  }
  // Servers stream a fixed number of tokens per event (vLLM's stream interval); when the count
  // divides evenly, that is what each event carried. Otherwise share by text length.
  const auto event_count = static_cast<std::int64_t>(events.size());
  const long even_share = m.output_tokens % event_count == 0 ? static_cast<long>(m.output_tokens / event_count) : 0;
  double total_bytes = 0;
  for (const auto& e : events) {
    total_bytes += e.bytes;
  }
  const double tokens_per_byte = total_bytes > 0 ? static_cast<double>(m.output_tokens) / total_bytes : 0;
  for (std::size_t i = 1; i < events.size(); ++i) {
    const double gap_ms = static_cast<double>(events[i].ns - events[i - 1].ns) / 1e6;
    const long tokens = even_share > 0 ? even_share : std::max(1L, std::lround(events[i].bytes * tokens_per_byte));
    for (long t = 0; t < tokens; ++t) {
      itl_ms.push_back(gap_ms / static_cast<double>(tokens));
    }
  }
  return m;
}

}  // namespace infergate::bench
