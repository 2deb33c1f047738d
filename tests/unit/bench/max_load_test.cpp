#include "bench/max_load.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace infergate::bench {
namespace {

// Drives the search against a server whose SLOs hold up to `capacity` requests/s.
MaxLoadSearch search_against(double capacity, double start, std::vector<double>& measured) {
  MaxLoadSearch search(start, 0.1, 10'000);
  while (auto rate = search.next()) {
    measured.push_back(*rate);
    search.record(*rate, *rate <= capacity);
    if (measured.size() > 100) {
      break;
    }
  }
  return search;
}

TEST(MaxLoad, DoublesThenBisectsToWithinThePrecision) {
  std::vector<double> measured;
  const MaxLoadSearch s = search_against(37, 1, measured);
  ASSERT_TRUE(s.passing());
  ASSERT_TRUE(s.failing());
  EXPECT_LE(*s.passing(), 37);
  EXPECT_GT(*s.failing(), 37);
  EXPECT_LE(*s.failing() / *s.passing(), 1.1);
  EXPECT_EQ((std::vector<double>(measured.begin(), measured.begin() + 7)),
            (std::vector<double>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_LT(measured.size(), 15u);
}

TEST(MaxLoad, LooksBelowAStartThatAlreadyFails) {
  std::vector<double> measured;
  const MaxLoadSearch s = search_against(3, 10, measured);
  EXPECT_EQ(measured[1], 5);
  ASSERT_TRUE(s.passing());
  EXPECT_LE(*s.passing(), 3);
  EXPECT_LE(*s.failing() / *s.passing(), 1.1);
}

TEST(MaxLoad, StopsAtTheCeilingOrWhenNothingPasses) {
  std::vector<double> measured;
  MaxLoadSearch s(1, 0.1, 8);
  while (auto rate = s.next()) {
    s.record(*rate, true);
  }
  EXPECT_EQ(s.passing(), 8);
  EXPECT_FALSE(s.failing());
  MaxLoadSearch never(1, 0.1, 8);
  while (auto rate = never.next()) {
    never.record(*rate, false);
  }
  EXPECT_FALSE(never.passing());
  EXPECT_LE(*never.failing(), 0.02);
}

}  // namespace
}  // namespace infergate::bench
