#include "core/append_number.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

namespace infergate {
namespace {

TEST(AppendNumber, DecimalMatchesPrintfAcrossTheRange) {
  for (const std::int64_t v : {std::int64_t{0}, std::int64_t{7}, std::int64_t{-42}, std::int64_t{1'000'000},
                               std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
    std::string out = "x=";
    append_decimal(out, v);
    EXPECT_EQ(out, "x=" + std::to_string(v));
  }
}

TEST(AppendNumber, HexIsLowerCaseWithoutPrefix) {
  std::string out;
  append_hex(out, 0);
  out += ' ';
  append_hex(out, 0x2b7fULL);
  out += ' ';
  append_hex(out, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(out, "0 2b7f ffffffffffffffff");
}

TEST(AppendNumber, FixedMatchesPrintfIncludingRoundingAndExtremes) {
  for (const double v : {0.0, 1.0005, 2.5, -3.14159, 123456.7894, 1e-9, 1e300, -1e308}) {
    char expected[400];
    std::snprintf(expected, sizeof(expected), "%.3f", v);
    std::string out;
    append_fixed(out, v, 3);
    EXPECT_EQ(out, expected) << v;
  }
}

TEST(AppendNumber, FixedMatchesPrintfOnManyLogValues) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> magnitude(-4.0, 10.0);
  for (int i = 0; i < 200000; ++i) {
    double v = std::pow(10.0, magnitude(rng)) * ((rng() & 1) != 0 ? 1.0 : -1.0);
    if (i % 4 == 0) {
      v = static_cast<double>(rng() % 2000000) / 2000.0 + 0.0005;  // near the halves "%.3f" must round
    }
    for (const int decimals : {0, 1, 3, 6}) {
      char expected[400];
      std::snprintf(expected, sizeof(expected), "%.*f", decimals, v);
      std::string out;
      append_fixed(out, v, decimals);
      ASSERT_EQ(out, expected) << v << " with " << decimals << " decimals";
    }
  }
  for (const double v : {-0.0, -0.0001, 0.0005, 0.0015, 2.0005, 999999.9995}) {
    char expected[64];
    std::snprintf(expected, sizeof(expected), "%.3f", v);
    std::string out;
    append_fixed(out, v, 3);
    EXPECT_EQ(out, expected) << v;
  }
}

}  // namespace
}  // namespace infergate
