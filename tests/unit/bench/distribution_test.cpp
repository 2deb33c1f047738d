#include "bench/distribution.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace infergate::bench {
namespace {

TEST(LengthDistribution, FixedNormalUniform) {
  Rng rng(1);
  EXPECT_EQ(LengthDistribution::parse("512").sample(rng), 512);
  const auto normal = LengthDistribution::parse("normal:200,20");
  double sum = 0;
  for (int i = 0; i < 4000; ++i) {
    sum += normal.sample(rng);
  }
  EXPECT_NEAR(sum / 4000, 200, 2);
  const auto uniform = LengthDistribution::parse("uniform:10,12");
  for (int i = 0; i < 200; ++i) {
    const int v = uniform.sample(rng);
    EXPECT_GE(v, 10);
    EXPECT_LE(v, 12);
  }
  EXPECT_EQ(uniform.to_string(), "uniform:10,12");
}

TEST(LengthDistribution, NeverBelowOne) {
  Rng rng(3);
  const auto wide = LengthDistribution::parse("normal:2,50");
  for (int i = 0; i < 1000; ++i) {
    EXPECT_GE(wide.sample(rng), 1);
  }
}

TEST(LengthDistribution, RejectsNonsense) {
  for (const char* bad : {"0", "abc", "normal:5", "uniform:9,3", "poisson:3,4", "normal:-1,2", "12tokens"}) {
    EXPECT_THROW(LengthDistribution::parse(bad), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace infergate::bench
