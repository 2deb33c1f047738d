#include "core/json_error.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

namespace infergate {
namespace {

std::string error_of(std::string_view text) {
  std::string error;
  const boost::json::value value = parse_json(text, error);
  EXPECT_TRUE(value.is_null()) << text;
  return error;
}

TEST(JsonError, SaysWhereTheSyntaxBreaksByLineAndColumn) {
  EXPECT_EQ(error_of(R"({"a":[1,2,]})"), "syntax error at line 1, column 11");
  EXPECT_EQ(error_of("{\n  \"a\" 1\n}"), "syntax error at line 2, column 7");
}

TEST(JsonError, CountsColumnsInCharactersNotBytes) {
  // "é" is two bytes and one column.
  EXPECT_EQ(error_of("{\"caf\xc3\xa9\":,}"), "syntax error at line 1, column 9");
}

TEST(JsonError, TellsInvalidUtf8FromASyntaxError) {
  EXPECT_EQ(error_of("{\"a\":\"\xff\xfe\"}"), "invalid UTF-8 at line 1, column 7");
  EXPECT_EQ(error_of("{\"a\":\"x\xc3(\"}"), "invalid UTF-8 at line 1, column 8");        // a sequence cut short
  EXPECT_EQ(error_of("{\"a\":\"\xc0\xaf\"}"), "invalid UTF-8 at line 1, column 7");      // an overlong '/'
  EXPECT_EQ(error_of("{\"a\":\"\xed\xa0\x80\"}"), "invalid UTF-8 at line 1, column 7");  // a surrogate
  // Well-formed UTF-8 where JSON allows no character is a syntax error.
  EXPECT_EQ(error_of("{\xc3\xa9}"), "syntax error at line 1, column 2");
}

TEST(JsonError, TellsAnEmptyOrCutShortTextAndExtraData) {
  EXPECT_EQ(error_of(""), "it is empty");
  EXPECT_EQ(error_of(" \n"), "it is empty");
  EXPECT_EQ(error_of(R"({"a":[1,2)"), "it ends before the JSON value does");
  EXPECT_EQ(error_of("{\"a\":1}\n  x"), "extra data after the JSON value at line 2, column 3");
}

TEST(JsonError, ParsesWhatJsonParseParses) {
  std::string error;
  const boost::json::value value = parse_json(" {\"a\":[1,\"caf\xc3\xa9\"]}\n", error);
  EXPECT_TRUE(error.empty());
  EXPECT_EQ(value, boost::json::parse(" {\"a\":[1,\"caf\xc3\xa9\"]}\n"));
}

}  // namespace
}  // namespace infergate
