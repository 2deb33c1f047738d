#include "sim/text_generator.hpp"

#include <gtest/gtest.h>

#include "core/text_tokens.hpp"

namespace infergate::sim {
namespace {

TEST(TextGenerator, DeterministicPerSeedAndOneWordPerToken) {
  std::string a;
  std::string b;
  append_output(42, 0, 50, a);
  append_output(42, 0, 20, b);
  append_output(42, 20, 30, b);
  EXPECT_EQ(a, b);
  EXPECT_EQ(count_words(a), 50u);
  std::string other;
  append_output(43, 0, 50, other);
  EXPECT_NE(a, other);
}

TEST(TextGenerator, NaturalLengthStaysInRange) {
  for (std::uint64_t seed = 0; seed < 1000; ++seed) {
    const int n = natural_length(seed);
    EXPECT_GE(n, 16);
    EXPECT_LE(n, 1024);
  }
  EXPECT_EQ(natural_length(7), natural_length(7));
}

}  // namespace
}  // namespace infergate::sim
