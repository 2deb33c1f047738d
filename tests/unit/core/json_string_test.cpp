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

// The escaping JSON requires, a byte at a time: what the word- and block-wise paths must equal.
std::string reference_literal(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n' || c == '\r' || c == '\t') {
      out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
    } else if (byte < 0x20) {
      out += "\\u00";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out + '"';
}

// Every byte value at every place of every length up to past two blocks: short strings are checked
// a word at a time, overlapping, and the end of a long one in a block that overlaps the last.
TEST(JsonString, EveryByteValueAtEveryPlaceOfEveryShortLengthMatchesTheReference) {
  for (std::size_t length = 1; length <= 40; ++length) {
    for (std::size_t at = 0; at < length; ++at) {
      for (int byte = 0; byte < 256; ++byte) {
        std::string text(length, 'k');
        text[at] = static_cast<char>(byte);
        ASSERT_EQ(literal(text), reference_literal(text)) << "length " << length << ", byte " << byte << " at " << at;
      }
    }
  }
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
    EXPECT_EQ(json, reference_literal(text));
  }
}

}  // namespace
}  // namespace infergate
