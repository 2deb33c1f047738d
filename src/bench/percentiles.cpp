#include "bench/percentiles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

namespace infergate::bench {

std::optional<double> Stat::at(double p) const {
  if (p == 50) {
    return p50;
  }
  if (p == 90) {
    return p90;
  }
  if (p == 95) {
    return p95;
  }
  if (p == 99) {
    return p99;
  }
  for (const Quantile& q : more) {
    if (q.p == p) {
      return q.value;
    }
  }
  return std::nullopt;
}

bool is_standard_percentile(double p) {
  return p == 50 || p == 90 || p == 95 || p == 99;
}

std::string percentile_key(double p) {
  return fmt::format("p{}", p);
}

std::optional<double> percentile_of_key(std::string_view key) {
  double p = 0;
  const char* end = key.data() + key.size();
  if (key.size() < 2 || key.front() != 'p') {
    return std::nullopt;
  }
  const auto parsed = std::from_chars(key.data() + 1, end, p);
  if (parsed.ec != std::errc{} || parsed.ptr != end || !(p >= 0 && p <= 100)) {
    return std::nullopt;
  }
  return p;
}

double percentile(const std::vector<double>& sorted, double p) {
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(rank));
  const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = rank - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

Stat summarize(std::vector<double>& values, std::span<const double> more) {
  Stat s;
  if (values.empty()) {
    for (const double p : more) {
      s.more.push_back({p, 0});
    }
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
  for (const double p : more) {
    s.more.push_back({p, percentile(values, p)});
  }
  return s;
}

}  // namespace infergate::bench
