#include "bench/percentiles.hpp"

#include <gtest/gtest.h>

namespace infergate::bench {
namespace {

// Values and expectations checked by hand against numpy.percentile's default (linear) method.
TEST(Percentiles, LinearInterpolationBetweenClosestRanks) {
  const std::vector<double> v{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 50), 2.5);   // rank 1.5
  EXPECT_DOUBLE_EQ(percentile(v, 90), 3.7);   // rank 2.7
  EXPECT_DOUBLE_EQ(percentile(v, 99), 3.97);  // rank 2.97
  EXPECT_DOUBLE_EQ(percentile(v, 100), 4);
}

TEST(Percentiles, SingleValue) {
  const std::vector<double> v{7};
  EXPECT_DOUBLE_EQ(percentile(v, 50), 7);
  EXPECT_DOUBLE_EQ(percentile(v, 99), 7);
}

TEST(Percentiles, SummarizeSortsAndComputesEveryFigure) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) {
    v.push_back(i);
  }
  const Stat s = summarize(v);
  EXPECT_EQ(s.count, 100u);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.p50, 50.5);   // rank 49.5
  EXPECT_DOUBLE_EQ(s.p90, 90.1);   // rank 89.1
  EXPECT_DOUBLE_EQ(s.p95, 95.05);  // rank 94.05
  EXPECT_DOUBLE_EQ(s.p99, 99.01);  // rank 98.01
}

TEST(Percentiles, EmptyInputIsAllZero) {
  std::vector<double> v;
  const Stat s = summarize(v);
  EXPECT_EQ(s.count, 0u);
  EXPECT_DOUBLE_EQ(s.p99, 0);
}

}  // namespace
}  // namespace infergate::bench
