#include "bench/max_load.hpp"

#include <cmath>

namespace infergate::bench {

MaxLoadSearch::MaxLoadSearch(double start_rate, double precision, double max_rate)
    : start_(start_rate), precision_(precision), max_rate_(max_rate) {}

std::optional<double> MaxLoadSearch::next() const {
  if (!passing_ && !failing_) {
    return start_;
  }
  if (!failing_) {
    const double up = *passing_ * 2;
    return up <= max_rate_ ? std::optional(up) : std::nullopt;
  }
  if (!passing_) {
    // Even the start fails: look below it, down to a hundredth of it.
    const double down = *failing_ / 2;
    return down >= start_ / 100 ? std::optional(down) : std::nullopt;
  }
  if (*failing_ / *passing_ <= 1 + precision_) {
    return std::nullopt;
  }
  return std::sqrt(*passing_ * *failing_);  // the middle in ratio
}

void MaxLoadSearch::record(double rate, bool met) {
  if (met) {
    if (!passing_ || rate > *passing_) {
      passing_ = rate;
    }
  } else if (!failing_ || rate < *failing_) {
    failing_ = rate;
  }
}

}  // namespace infergate::bench
