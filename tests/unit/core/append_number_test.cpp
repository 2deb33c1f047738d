#include "core/append_number.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <limits>

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

}  // namespace
}  // namespace infergate
