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

TEST(Percentiles, MorePercentilesAreComputedTheSameWayAndFoundByAt) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) {
    v.push_back(i);
  }
  const std::vector<double> more{25, 99.9};
  const Stat s = summarize(v, more);
  ASSERT_EQ(s.more.size(), 2u);
  EXPECT_DOUBLE_EQ(s.more[0].value, 25.75);   // rank 24.75
  EXPECT_DOUBLE_EQ(s.more[1].value, 99.901);  // rank 98.901
  EXPECT_EQ(s.at(25), 25.75);
  EXPECT_EQ(s.at(99), s.p99);
  EXPECT_EQ(s.at(75), std::nullopt);
  EXPECT_EQ(percentile_key(99.9), "p99.9");
  EXPECT_EQ(percentile_key(50), "p50");
  for (const double p : {0.0, 0.5, 25.0, 99.9, 99.99, 100.0}) {
    EXPECT_EQ(percentile_of_key(percentile_key(p)), p);
  }
  for (const char* other : {"p", "max", "p101", "p-1", "p9x", "pnan", "q50"}) {
    EXPECT_EQ(percentile_of_key(other), std::nullopt) << other;
  }
}

TEST(Percentiles, EmptyInputIsAllZeroWithTheSamePercentiles) {
  std::vector<double> none;
  const std::vector<double> more{99.9};
  const Stat e = summarize(none, more);
  ASSERT_EQ(e.more.size(), 1u);
  EXPECT_EQ(e.at(99.9), 0);
}

TEST(Percentiles, EmptyInputIsAllZero) {
  std::vector<double> v;
  const Stat s = summarize(v);
  EXPECT_EQ(s.count, 0u);
  EXPECT_DOUBLE_EQ(s.p99, 0);
}

}  // namespace
}  // namespace infergate::bench
