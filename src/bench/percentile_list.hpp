#pragma once
// `--percentiles 99.9,99.99`: percentiles a run reports beside p50, p90, p95 and p99, in the
// summary table and in the JSON's statistics (as "p99.9"), as AIPerf and GuideLLM report tails
// past p99 and vLLM's --metric-percentiles chooses them.
#include <cstddef>
#include <string_view>
#include <vector>

namespace infergate::bench {

inline constexpr std::size_t kMaxExtraPercentiles = 8;

// The comma-separated percentiles in `text` (each 0 to 100, a leading "p" allowed) that are not
// one of the four standard ones, ascending, each once. Throws std::invalid_argument naming the
// item that is not a percentile, or when more than kMaxExtraPercentiles remain.
[[nodiscard]] std::vector<double> parse_percentiles(std::string_view text);

}  // namespace infergate::bench
