#include "bench/percentile_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "bench/percentiles.hpp"

namespace infergate::bench {

namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') {
    s.remove_prefix(1);
  }
  while (!s.empty() && s.back() == ' ') {
    s.remove_suffix(1);
  }
  return s;
}

double parse_one(std::string_view item) {
  std::string_view digits = trimmed(item);
  if (digits.starts_with('p') || digits.starts_with('P')) {
    digits.remove_prefix(1);
  }
  double p = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), p);
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() || !std::isfinite(p)) {
    throw std::invalid_argument(fmt::format("'{}' is not a percentile (e.g. 99.9 or p99.9)", trimmed(item)));
  }
  if (p < 0 || p > 100) {
    throw std::invalid_argument(fmt::format("percentile {} is outside 0 to 100", trimmed(item)));
  }
  return p;
}

}  // namespace

std::vector<double> parse_percentiles(std::string_view text) {
  std::vector<double> more;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const double p = parse_one(text.substr(start, comma - start));
    if (!is_standard_percentile(p)) {
      more.push_back(p);
    }
    start = comma + 1;
  }
  std::sort(more.begin(), more.end());
  more.erase(std::unique(more.begin(), more.end()), more.end());
  if (more.size() > kMaxExtraPercentiles) {
    throw std::invalid_argument(fmt::format("{} percentiles beyond p50, p90, p95 and p99; at most {} fit the table",
                                            more.size(), kMaxExtraPercentiles));
  }
  return more;
}

}  // namespace infergate::bench
