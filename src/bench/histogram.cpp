#include "bench/histogram.hpp"

#include <fmt/format.h>
#include <boost/json/array.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace infergate::bench {

namespace json = boost::json;

namespace {

const double kLogGrowth = std::log(LogHistogram::kGrowth);

int bucket_of(double value) {
  return static_cast<int>(std::floor(std::log(value) / kLogGrowth));
}
double lower_edge(int index) {
  return std::exp(index * kLogGrowth);
}

}  // namespace

void LogHistogram::add(double value) {
  if (count_ == 0) {
    min_ = max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  ++count_;
  sum_ += value;
  if (value > 0) {
    ++counts_[bucket_of(value)];
  } else {
    ++zero_;
  }
}

void LogHistogram::merge(const LogHistogram& other) {
  if (other.count_ == 0) {
    return;
  }
  if (count_ == 0) {
    min_ = other.min_;
    max_ = other.max_;
  } else {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
  count_ += other.count_;
  sum_ += other.sum_;
  zero_ += other.zero_;
  for (const auto& [index, n] : other.counts_) {
    counts_[index] += n;
  }
}

double LogHistogram::value_at(std::uint64_t rank) const {
  if (rank == 0) {
    return min_;
  }
  if (rank + 1 >= count_) {
    return max_;
  }
  std::uint64_t seen = zero_;
  if (rank < seen) {
    return std::max(0.0, min_);
  }
  for (const auto& [index, n] : counts_) {
    seen += n;
    if (rank < seen) {
      return std::clamp(lower_edge(index) * std::sqrt(kGrowth), min_, max_);
    }
  }
  return max_;
}

double LogHistogram::percentile(double p) const {
  if (count_ == 0) {
    return 0;
  }
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(count_ - 1);
  const auto lower = static_cast<std::uint64_t>(std::floor(rank));
  const double low = value_at(lower);
  const double fraction = rank - static_cast<double>(lower);
  return fraction > 0 ? low + (value_at(lower + 1) - low) * fraction : low;
}

Stat LogHistogram::stat(std::span<const double> more) const {
  Stat s;
  s.count = count_;
  for (const double p : more) {
    s.more.push_back({p, percentile(p)});
  }
  if (count_ == 0) {
    return s;
  }
  s.mean = sum_ / static_cast<double>(count_);
  s.min = min_;
  s.max = max_;
  s.p50 = percentile(50);
  s.p90 = percentile(90);
  s.p95 = percentile(95);
  s.p99 = percentile(99);
  return s;
}

std::vector<std::pair<double, double>> LogHistogram::cdf() const {
  std::vector<std::pair<double, double>> points;
  points.reserve(counts_.size() + 1);
  std::uint64_t seen = zero_;
  const auto total = static_cast<double>(count_);
  if (zero_ > 0) {
    points.emplace_back(0.0, static_cast<double>(seen) / total);
  }
  for (const auto& [index, n] : counts_) {
    seen += n;
    points.emplace_back(std::min(lower_edge(index + 1), max_), static_cast<double>(seen) / total);
  }
  return points;
}

std::vector<LogHistogram::Bucket> LogHistogram::buckets() const {
  std::vector<Bucket> out;
  out.reserve(counts_.size() + 1);
  if (zero_ > 0) {
    out.push_back({0, 0, zero_});
  }
  for (const auto& [index, n] : counts_) {
    out.push_back({lower_edge(index), lower_edge(index + 1), n});
  }
  return out;
}

json::object LogHistogram::to_json() const {
  json::array index;
  json::array counts;
  index.reserve(counts_.size());
  counts.reserve(counts_.size());
  for (const auto& [i, n] : counts_) {
    index.emplace_back(i);
    counts.emplace_back(n);
  }
  return json::object{{"growth", kGrowth},
                      {"count", count_},
                      {"sum", sum_},
                      {"min", min_},
                      {"max", max_},
                      {"zero", zero_},
                      {"index", std::move(index)},
                      {"counts", std::move(counts)}};
}

LogHistogram LogHistogram::from_json(const json::value& value) {
  auto fail = [](std::string_view why) { throw std::runtime_error(fmt::format("not a histogram: {}", why)); };
  if (!value.is_object()) {
    fail("expected an object");
  }
  const auto& o = value.get_object();
  auto number = [&](std::string_view key) -> double {
    const auto* v = o.if_contains(key);
    if (v == nullptr || !v->is_number()) {
      fail(fmt::format("'{}' is missing or not a number", key));
    }
    return v->to_number<double>();
  };
  if (std::abs(number("growth") - kGrowth) > 1e-12) {
    fail(fmt::format("bucket growth {} differs from {}", number("growth"), kGrowth));
  }
  // A sample count: a whole number a uint64 holds (casting any other double is undefined).
  auto whole = [&](std::string_view key) -> std::uint64_t {
    const double v = number(key);
    if (!(v >= 0 && v < 0x1p64) || v != std::floor(v)) {
      fail(fmt::format("'{}' must be a whole number of samples", key));
    }
    return static_cast<std::uint64_t>(v);
  };
  LogHistogram h;
  h.count_ = whole("count");
  h.sum_ = number("sum");
  h.min_ = number("min");
  h.max_ = number("max");
  h.zero_ = whole("zero");
  const auto* index = o.if_contains("index");
  const auto* counts = o.if_contains("counts");
  if (index == nullptr || counts == nullptr || !index->is_array() || !counts->is_array() ||
      index->get_array().size() != counts->get_array().size()) {
    fail("'index' and 'counts' must be arrays of the same length");
  }
  std::uint64_t total = h.zero_;
  for (std::size_t i = 0; i < index->get_array().size(); ++i) {
    const auto& at = index->get_array()[i];
    const auto& n = counts->get_array()[i];
    if (!at.is_int64() || !((n.is_int64() && n.get_int64() >= 0) || n.is_uint64())) {
      fail("bucket indexes must be integers and counts whole numbers");
    }
    const auto c = n.to_number<std::uint64_t>();
    h.counts_[static_cast<int>(at.get_int64())] += c;
    total += c;
  }
  if (total != h.count_) {
    fail(fmt::format("its buckets hold {} samples but its count is {}", total, h.count_));
  }
  return h;
}

}  // namespace infergate::bench
