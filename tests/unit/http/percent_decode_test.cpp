#include "http/percent_decode.hpp"

#include <gtest/gtest.h>

namespace infergate::http {
namespace {

TEST(PercentDecode, ReplacesEachEscapeByItsByteInEitherCase) {
  EXPECT_EQ(percent_decode("a%2Fb%2fc"), "a/b/c");
  EXPECT_EQ(percent_decode("%41%7a%25"), "Az%");
  EXPECT_EQ(percent_decode("plain+text"), "plain+text");  // '+' is a space only in forms
  EXPECT_EQ(percent_decode(""), "");
  EXPECT_EQ(percent_decode("%00"), std::string(1, '\0'));
}

TEST(PercentDecode, AnEscapeWithoutTwoHexDigitsIsRefused) {
  EXPECT_FALSE(percent_decode("%"));
  EXPECT_FALSE(percent_decode("a%2"));
  EXPECT_FALSE(percent_decode("%g0"));
  EXPECT_FALSE(percent_decode("%0g"));
}

}  // namespace
}  // namespace infergate::http
