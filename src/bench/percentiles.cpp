#include "bench/percentiles.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace infergate::bench {

double percentile(const std::vector<double>& sorted, double p) {
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(rank));
  const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = rank - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

Stat summarize(std::vector<double>& values) {
  Stat s;
  if (values.empty()) {
    return s;
  }
  std::sort(values.begin(), values.end());
  s.count = values.size();
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  s.min = values.front();
  s.max = values.back();
  s.p50 = percentile(values, 50);
  s.p90 = percentile(values, 90);
  s.p95 = percentile(values, 95);
  s.p99 = percentile(values, 99);
  return s;
}

}  // namespace infergate::bench
