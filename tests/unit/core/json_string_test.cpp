#include "core/json_string.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <random>
#include <string>

namespace infergate {
namespace {

std::string literal(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

TEST(JsonString, EscapesWhatJsonRequiresAndNothingElse) {
  EXPECT_EQ(literal(""), R"("")");
  EXPECT_EQ(literal(std::string_view{}), R"("")");  // no data at all (under UBSan, memcpy from null fails)
  EXPECT_EQ(literal("plain id 123"), R"("plain id 123")");
  EXPECT_EQ(literal("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(literal("\n\r\t\x01\x1f"), R"("\n\r\t\u0001\u001f")");
  EXPECT_EQ(literal("caf\xc3\xa9 \x7f"), "\"caf\xc3\xa9 \x7f\"");  // UTF-8 and DEL pass as they are
}

TEST(JsonString, EveryByteAtEveryPlaceOfLongTextReadsBackAsItself) {
  // Lengths past one and several 16-byte blocks, with the bytes to escape anywhere in them.
  std::mt19937 random(7);
  const std::string pool = std::string("abcXYZ019 \xc3\xa9\x80\xff\"\\\n\t\x01\x1f\x20\x7f", 22);
  for (int round = 0; round < 2000; ++round) {
    std::string text(random() % 70, ' ');
    for (char& c : text) {
      c = random() % 4 == 0 ? pool[random() % pool.size()] : static_cast<char>('a' + random() % 26);
    }
    const std::string json = literal(text);
    boost::system::error_code ec;
    const boost::json::value parsed = boost::json::parse(json, ec, {}, {.allow_invalid_utf8 = true});
    ASSERT_FALSE(ec) << json;
    ASSERT_TRUE(parsed.is_string());
    EXPECT_EQ(std::string_view(parsed.get_string()), text) << json;
  }
}

}  // namespace
}  // namespace infergate
