#include "http/line_break.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace infergate::http {
namespace {

TEST(LineBreak, FindsTheFirstCrOrLf) {
  EXPECT_EQ(first_line_break(""), std::string_view::npos);
  EXPECT_EQ(first_line_break("data: x"), std::string_view::npos);
  EXPECT_EQ(first_line_break("data: x\n\n"), 7U);
  EXPECT_EQ(first_line_break("data: x\r\n"), 7U);
  EXPECT_EQ(first_line_break("a\rb\nc"), 1U);
  const std::string long_line = std::string(100, 'x');
  EXPECT_EQ(first_line_break(long_line), std::string_view::npos);
  EXPECT_EQ(first_line_break(long_line + "\n"), 100U);
  EXPECT_EQ(first_line_break(long_line + "\r" + long_line + "\n"), 100U);
}

TEST(LineBreak, AgreesWithMemchrAtEveryLengthAndPlace) {
  // Lines of every length up to a few blocks, a break (CR, LF or both) at every place or none, the
  // bytes either side of the breaks' values and high bytes around them; each looked at through a
  // view that starts at every offset of a block, so that its end falls at every place of one.
  const std::string near = std::string("\x09\x0b\x0c\x0e\x8a\x8d\xff", 7) + "xyz";
  std::mt19937 rng(5);
  for (std::size_t length = 0; length <= 100; ++length) {
    for (int trial = 0; trial < 40; ++trial) {
      std::string line;
      for (std::size_t i = 0; i < length; ++i) {
        line += near[rng() % near.size()];
      }
      const int breaks = static_cast<int>(rng() % 3);
      for (int b = 0; b < breaks && length > 0; ++b) {
        line[rng() % length] = rng() % 2 == 0 ? '\n' : '\r';
      }
      // Breaks just past the view's end: a look beyond it would find them.
      const auto offset = static_cast<std::size_t>(trial % 32);
      const std::string padded = std::string(offset, 'x') + line + std::string(32, '\n');
      const std::string_view view = std::string_view(padded).substr(offset, length);
      ASSERT_EQ(first_line_break(view), first_line_break_memchr(view)) << length << " " << trial;
    }
  }
}

}  // namespace
}  // namespace infergate::http
