#include "core/utf8_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace infergate {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

TEST(Utf8Text, WellFormedTextIsKeptWhole) {
  const std::string text = "plain, \xC3\xA9t\xC3\xA9, \xE4\xB8\xAD\xE6\x96\x87, \xF0\x9F\x98\x80";
  EXPECT_EQ(valid_utf8(text), text);
  EXPECT_EQ(valid_utf8(""), "");
}

TEST(Utf8Text, EachStrayByteBecomesAReplacementCharacter) {
  EXPECT_EQ(valid_utf8("a\xFFz"), "a" + kFffd + "z");
  EXPECT_EQ(valid_utf8("\x80\x80"), kFffd + kFffd);                          // continuations with no lead
  EXPECT_EQ(valid_utf8("\xC3x"), kFffd + "x");                               // a lead with no continuation
  EXPECT_EQ(valid_utf8("\xC0\xAF"), kFffd + kFffd);                          // overlong '/'
  EXPECT_EQ(valid_utf8("\xE0\x80\xAF"), kFffd + kFffd + kFffd);              // overlong, three bytes
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), kFffd + kFffd + kFffd);              // a surrogate
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // past U+10FFFF
  EXPECT_EQ(valid_utf8("\xF5\x80"), kFffd + kFffd);
  EXPECT_EQ(valid_utf8("end\xE4\xB8"), "end" + kFffd + kFffd);  // a character the text cut short
}

TEST(Utf8Text, ACutFallsOnACharactersBoundary) {
  const std::string text = "ab\xE4\xB8\xADxy";  // a, b, one three-byte character, x, y
  EXPECT_EQ(valid_utf8(text, 2), "ab");
  EXPECT_EQ(valid_utf8(text, 3), "ab");
  EXPECT_EQ(valid_utf8(text, 4), "ab");
  EXPECT_EQ(valid_utf8(text, 5), "ab\xE4\xB8\xAD");
  EXPECT_EQ(valid_utf8(text, 6), "ab\xE4\xB8\xADx");
  EXPECT_EQ(valid_utf8(text, 100), text);
}

}  // namespace
}  // namespace infergate
