#pragma once
// Order statistics as numpy computes them by default (linear interpolation between closest
// ranks), so figures match vLLM's benchmark scripts on the same samples.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace infergate::bench {

struct Quantile {
  double p = 0;  // in [0, 100]
  double value = 0;
};

struct Stat {
  std::size_t count = 0;
  double mean = 0;
  double min = 0;
  double p50 = 0;
  double p90 = 0;
  double p95 = 0;
  double p99 = 0;
  double max = 0;
  std::vector<Quantile> more;  // --percentiles beyond the four above, ascending

  // The figure at `p` when this Stat holds it (one of the four, or one of `more`).
  [[nodiscard]] std::optional<double> at(double p) const;
};

// p50, p90, p95 and p99: always computed, and what SLOs, sweeps and reports read.
bool is_standard_percentile(double p);
// "p99.9": the key of a percentile in the JSON and the heading of its column.
std::string percentile_key(double p);
// Its inverse: 99.9 for "p99.9"; nothing for a key that is not a percentile's.
std::optional<double> percentile_of_key(std::string_view key);

// `sorted` must be ascending and non-empty; p in [0, 100].
double percentile(const std::vector<double>& sorted, double p);

// Sorts `values` in place; all zero for an empty input. `more` (ascending, none standard) are
// the extra percentiles to compute.
Stat summarize(std::vector<double>& values, std::span<const double> more = {});

}  // namespace infergate::bench
