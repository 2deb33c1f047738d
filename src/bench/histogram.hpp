#pragma once
// A log-bucketed histogram: bucket i holds values in [g^i, g^(i+1)) with g = 1.01, so any value is
// known to within 1%; zero (and below) has a bucket of its own. Histograms merge exactly by adding
// counts, which is how runs from several processes or machines are pooled: percentiles of the
// pooled samples, never averaged percentiles.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "bench/percentiles.hpp"

namespace infergate::bench {

class LogHistogram {
 public:
  static constexpr double kGrowth = 1.01;

  void add(double value);
  void merge(const LogHistogram& other);

  [[nodiscard]] std::uint64_t count() const { return count_; }
  [[nodiscard]] bool empty() const { return count_ == 0; }
  // As numpy computes it (linear interpolation between the closest ranks), each ranked sample
  // taken as its bucket's geometric middle clamped to the exact min and max: within 0.5% of the
  // percentile of the samples themselves.
  [[nodiscard]] double percentile(double p) const;
  // Count, mean, min and max exact; percentiles from the buckets (`more` as summarize takes them).
  [[nodiscard]] Stat stat(std::span<const double> more = {}) const;
  // The empirical CDF at each non-empty bucket: (its upper edge, share of samples at or below).
  [[nodiscard]] std::vector<std::pair<double, double>> cdf() const;
  // Non-empty buckets as (lower edge, upper edge, count), ascending; the zero bucket is (0, 0, n).
  struct Bucket {
    double low;
    double high;
    std::uint64_t count;
  };
  [[nodiscard]] std::vector<Bucket> buckets() const;

  // The rank-th smallest sample (0-based) as its bucket's middle; the smallest and largest exact.
  [[nodiscard]] double value_at(std::uint64_t rank) const;

  // {"growth": 1.01, "count", "sum", "min", "max", "zero", "index": [...], "counts": [...]}.
  [[nodiscard]] boost::json::object to_json() const;
  // Throws std::runtime_error when the value is not a histogram of this growth factor.
  static LogHistogram from_json(const boost::json::value& value);

 private:
  std::map<int, std::uint64_t> counts_;
  std::uint64_t zero_ = 0;
  std::uint64_t count_ = 0;
  double sum_ = 0;
  double min_ = 0;
  double max_ = 0;
};

}  // namespace infergate::bench
