#include "core/append_number.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

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

// Every length of every sign, the edges of each length, and the extremes: digits are worked eight
// at a time, so the lengths around multiples of eight and the leading zeros inside a group matter.
TEST(AppendNumber, DecimalMatchesToCharsAtEveryLengthAndStaysInItsBound) {
  std::vector<std::int64_t> values = {std::numeric_limits<std::int64_t>::min(),
                                      std::numeric_limits<std::int64_t>::min() + 1,
                                      std::numeric_limits<std::int64_t>::max()};
  for (std::int64_t v = 0; v < 100'000; ++v) {
    values.push_back(v);
  }
  std::int64_t power = 1;
  for (int digits = 1; digits <= 18; ++digits) {
    power *= 10;
    for (const std::int64_t v : {power - 1, power, power + 1, power + power / 10 - 1, 9 * power + 1}) {
      values.push_back(v);
    }
  }
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200'000; ++i) {
    values.push_back(static_cast<std::int64_t>(rng() >> (rng() % 64)));  // every magnitude
  }
  for (const std::int64_t v : std::vector<std::int64_t>(values)) {
    values.push_back(v == std::numeric_limits<std::int64_t>::min() ? v : -v);
  }
  for (const std::int64_t v : values) {
    char expected[kDecimalBound];
    const std::string_view want(
        expected, static_cast<std::size_t>(std::to_chars(expected, expected + sizeof(expected), v).ptr - expected));
    char buffer[kDecimalBound + 8];
    std::memset(buffer, '#', sizeof(buffer));
    const char* end = write_decimal(buffer, v);
    ASSERT_EQ(std::string_view(buffer, static_cast<std::size_t>(end - buffer)), want) << v;
    ASSERT_EQ(std::string_view(buffer + kDecimalBound, 8), "########") << v;
  }
}

std::string shortest(double v) {
  char text[kShortestBound];
  return std::string(text, write_shortest(text, v));
}

std::string shortest_by_to_chars(double v) {
  char text[kShortestBound];
  return std::string(text, std::to_chars(text, text + sizeof(text), v).ptr);
}

// The quick way for decimals of up to 15 digits must write exactly what std::to_chars writes:
// the same digits, and the same choice of fixed or scientific.
TEST(AppendNumber, ShortestMatchesToChars) {
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                10.0,
                                0.1,
                                2.48e-05,
                                1e-4,
                                123456.0,
                                1e15,
                                1e-8,
                                9.999999999999999e14,
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
  for (int k = -10; k <= 17; ++k) {
    const double power = std::pow(10.0, k);
    for (const double v : {power, std::nextafter(power, 0.0), std::nextafter(power, 1e300)}) {
      values.push_back(v);
    }
  }
  std::mt19937_64 rng(5);
  for (int i = 0; i < 300'000; ++i) {
    // Decimals of every length from 1 to 17 digits at every scale of the range and past it.
    const auto digits = static_cast<int>(rng() % 17) + 1;
    const auto mantissa = static_cast<double>(rng() % static_cast<std::uint64_t>(std::pow(10.0, digits)));
    values.push_back(mantissa * std::pow(10.0, static_cast<int>(rng() % 30) - 22));
    // Costs as the ledger computes them: tokens at prices per million.
    const auto prompt = static_cast<double>(rng() % 200'000);
    const auto completion = static_cast<double>(rng() % 20'000);
    const double price_in = static_cast<double>(rng() % 2000) / 100.0;
    const double price_out = static_cast<double>(rng() % 8000) / 100.0;
    values.push_back((prompt * price_in + completion * price_out) / 1e6);
    // Any bits at all.
    values.push_back(std::bit_cast<double>(rng()));
  }
  for (const double v : values) {
    ASSERT_EQ(shortest(v), shortest_by_to_chars(v)) << std::hexfloat << v;
    ASSERT_EQ(shortest(-v), shortest_by_to_chars(-v)) << std::hexfloat << v;
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
    for (const int decimals : {0, 1, 2, 3, 4, 5, 6}) {
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
