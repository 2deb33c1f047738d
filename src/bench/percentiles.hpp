#pragma once
// Order statistics as numpy computes them by default (linear interpolation between closest
// ranks), so figures match vLLM's benchmark scripts on the same samples.
#include <cstddef>
#include <vector>

namespace infergate::bench {

struct Stat {
  std::size_t count = 0;
  double mean = 0;
  double min = 0;
  double p50 = 0;
  double p90 = 0;
  double p95 = 0;
  double p99 = 0;
  double max = 0;
};

// `sorted` must be ascending and non-empty; p in [0, 100].
double percentile(const std::vector<double>& sorted, double p);

// Sorts `values` in place; all zero for an empty input.
Stat summarize(std::vector<double>& values);

}  // namespace infergate::bench
