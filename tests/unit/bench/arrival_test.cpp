#include "bench/arrival.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace infergate::bench {
namespace {

double mean_gap(const ArrivalProcess& a, int n) {
  Rng rng(9);
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += a.next_gap(rng);
  }
  return sum / n;
}

TEST(ArrivalProcess, EveryShapeKeepsTheMeanRate) {
  EXPECT_DOUBLE_EQ(ArrivalProcess::parse("constant", 4).next_gap(*std::make_unique<Rng>(1)), 0.25);
  EXPECT_NEAR(mean_gap(ArrivalProcess::parse("poisson", 4), 20000), 0.25, 0.01);
  EXPECT_NEAR(mean_gap(ArrivalProcess::parse("gamma:0.5", 4), 20000), 0.25, 0.015);
  EXPECT_NEAR(mean_gap(ArrivalProcess::parse("gamma:8", 4), 20000), 0.25, 0.01);
}

TEST(ArrivalProcess, RejectsNonsense) {
  EXPECT_THROW(ArrivalProcess::parse("poisson", 0), std::invalid_argument);
  EXPECT_THROW(ArrivalProcess::parse("bursty", 1), std::invalid_argument);
  EXPECT_THROW(ArrivalProcess::parse("gamma:x", 1), std::invalid_argument);
  EXPECT_THROW(ArrivalProcess::parse("gamma:-1", 1), std::invalid_argument);
}

}  // namespace
}  // namespace infergate::bench

namespace infergate::bench {
namespace {

TEST(RampUp, RateRisesLinearlyThenHolds) {
  EXPECT_DOUBLE_EQ(ramped_time(3, 0), 3);
  EXPECT_DOUBLE_EQ(ramped_time(0, 10), 0);
  // Half the ramp's span of the full-rate schedule is spent in the ramp: 5 s of it take 10 s.
  EXPECT_DOUBLE_EQ(ramped_time(5, 10), 10);
  EXPECT_DOUBLE_EQ(ramped_time(1.25, 10), 5);  // a quarter of the ramp's arrivals by its middle
  EXPECT_DOUBLE_EQ(ramped_time(8, 10), 13);
}

}  // namespace
}  // namespace infergate::bench
