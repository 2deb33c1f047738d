#pragma once
// `--find-max-load`: the highest request rate that meets every SLO. The rate doubles from a start
// until an objective breaks, then the bracket [highest passing, lowest failing] is bisected (in
// ratio) until it is narrower than `precision`. Pure logic: the caller measures each rate.
#include <optional>

namespace infergate::bench {

class MaxLoadSearch {
 public:
  // `precision`: stop when failing / passing <= 1 + precision.
  MaxLoadSearch(double start_rate, double precision, double max_rate);

  // The next rate to measure, or nullopt when the search is over.
  [[nodiscard]] std::optional<double> next() const;
  // What the measurement at `rate` found.
  void record(double rate, bool met);

  [[nodiscard]] std::optional<double> passing() const { return passing_; }  // the answer, when any rate passed
  [[nodiscard]] std::optional<double> failing() const { return failing_; }

 private:
  double start_;
  double precision_;
  double max_rate_;
  std::optional<double> passing_;
  std::optional<double> failing_;
};

}  // namespace infergate::bench
