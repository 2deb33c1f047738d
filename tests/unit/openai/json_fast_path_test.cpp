#include "openai/json_fast_path.hpp"

#include <gtest/gtest.h>
#include <boost/json.hpp>
#include <boost/json/basic_parser_impl.hpp>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "openai/json_handler.hpp"
#include "random_edits.hpp"

namespace infergate::openai {
namespace {

namespace json = boost::json;

// Writes every event down, string parts joined, so that two readers' events can be compared
// however either splits a string. A double is written to the precision that tells doubles apart.
class EventLog : public JsonHandlerBase {
 public:
  EventLog() = default;
  explicit EventLog(int stop_after) : stop_after_(stop_after) {}

  bool on_document_begin(error_code&) { return add("^"); }
  bool on_document_end(error_code&) { return add("$"); }
  bool on_object_begin(error_code&) { return add("{"); }
  bool on_object_end(std::size_t n, error_code&) { return add("}" + std::to_string(n)); }
  bool on_array_begin(error_code&) { return add("["); }
  bool on_array_end(std::size_t n, error_code&) { return add("]" + std::to_string(n)); }
  bool on_key_part(json::string_view part, std::size_t, error_code&) {
    text_.append(part.data(), part.size());
    return true;
  }
  bool on_key(json::string_view part, std::size_t, error_code&) { return take("k:", part); }
  bool on_string_part(json::string_view part, std::size_t, error_code&) {
    text_.append(part.data(), part.size());
    return true;
  }
  bool on_string(json::string_view part, std::size_t, error_code&) { return take("s:", part); }
  bool on_number_part(json::string_view, error_code&) { return true; }
  bool on_int64(std::int64_t v, json::string_view raw, error_code&) {
    return add("i:" + std::to_string(v) + "/" + std::string(raw));
  }
  bool on_uint64(std::uint64_t v, json::string_view raw, error_code&) {
    return add("u:" + std::to_string(v) + "/" + std::string(raw));
  }
  bool on_double(double v, json::string_view raw, error_code&) {
    char digits[40];
    std::snprintf(digits, sizeof digits, "%.17g", v);
    return add("d:" + std::string(digits) + "/" + std::string(raw));
  }
  bool on_bool(bool v, error_code&) { return add(v ? "true" : "false"); }
  bool on_null(error_code&) { return add("null"); }

  [[nodiscard]] const std::vector<std::string>& events() const { return events_; }

 private:
  bool take(const char* kind, json::string_view last) {
    text_.append(last.data(), last.size());
    const bool ok = add(kind + text_);
    text_.clear();
    return ok;
  }
  bool add(std::string event) {
    events_.push_back(std::move(event));
    return stop_after_ < 0 || static_cast<int>(events_.size()) < stop_after_;
  }

  int stop_after_ = -1;
  std::string text_;
  std::vector<std::string> events_;
};

struct Outcome {
  bool accepted = false;
  std::vector<std::string> events;
};

Outcome fast(std::string_view text) {
  EventLog log;
  const bool accepted = read_common_json(text, log);
  return {accepted, log.events()};
}

Outcome boost_parser(std::string_view text) {
  json::basic_parser<EventLog> parser(json::parse_options{});
  std::size_t consumed = 0;
  const bool accepted = !parse_whole(parser, text, consumed);
  return {accepted, parser.handler().events()};
}

// The fast path's promise: whatever it accepts, the parser accepts too, with the same events.
void expect_agrees(std::string_view text) {
  const Outcome ours = fast(text);
  if (!ours.accepted) {
    return;
  }
  const Outcome theirs = boost_parser(text);
  ASSERT_TRUE(theirs.accepted) << "accepted what Boost.JSON refuses: " << text;
  ASSERT_EQ(ours.events, theirs.events) << text;
}

const char* const kCommon[] = {
    R"({"model":"plain","messages":[{"role":"user","content":"hello hello hello"}],"max_tokens":64})",
    R"({"model":"m","stream":true,"stream_options":{"include_usage":true},"temperature":0.7,"top_p":1.0})",
    R"({"prompt_tokens":128,"completion_tokens":60,"total_tokens":188})",
    R"({"id":"c-1","created":1,"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7},"x_groq":{"id":"q"}})",
    R"( { "a" : [ 1 , -2 , 3.25 , -0.5 , 0 , 0.0 ] , "b" : { } , "c" : [ ] , "d" : null } )",
    "\t\r\n{\"a\":\n[true,false,null]\r\n}\t",
    R"({"text":"line one\nline \"two\"\t\\ and a \/ slash\b\f\r"})",
    R"({"esc\"aped\\key":"v","":""})",
    R"("a string alone")",
    R"(123456789012345678)",
    R"(-123456789012345678)",
    R"([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]])",
    R"({"logit_bias":{"50256":-100,"1":0},"seed":42,"n":1,"stop":["\n\n","END"]})",
    R"([0.1,0.7,3.14159,-723456.890112,99999999.9999999,0.00000000000001,-0.0,12345678901234.5])",
    "{\"content\":\"caf\xc3\xa9 \xe2\x80\x9cquoted\xe2\x80\x9d \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80\"}",
    "{\"\xc3\xa9t\xc3\xa9\":\"\xf4\x8f\xbf\xbf\xed\x9f\xbf\xee\x80\x80\xc2\x80\"}",
    R"({"long":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"})",
};

TEST(JsonFastPath, AcceptsTheCommonDocumentsWithTheParsersEvents) {
  for (const char* text : kCommon) {
    const Outcome ours = fast(text);
    EXPECT_TRUE(ours.accepted) << text;
    const Outcome theirs = boost_parser(text);
    ASSERT_TRUE(theirs.accepted) << text;
    EXPECT_EQ(ours.events, theirs.events) << text;
  }
}

TEST(JsonFastPath, DeclinesWhatItLeavesToTheParser) {
  const char* const uncommon[] = {
      "{\"content\":\"caf\\u00e9\"}",  // \u escapes (the compiler would read one in a raw literal)
      "{\"content\":\"bad\xff\"}",     // invalid UTF-8
      R"({"n":1234567890123456789})",  // 19 digits: int64, uint64 or double
      R"({"n":-0})",                   // Boost.JSON's own rule
      R"({"n":1e5})",                  // exponents
      R"({"n":2.5E-3})",
      R"({"n":1.5e400})",
      R"({"n":0.1234567890123456})",  // 16 digits: not always exactly what the parser makes
      R"([[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]])",  // 32 levels
  };
  for (const char* text : uncommon) {
    EXPECT_FALSE(fast(text).accepted) << text;
  }
}

TEST(JsonFastPath, DeclinesEveryMalformedDocument) {
  const char* const malformed[] = {
      "",
      " ",
      "{",
      "}",
      R"({"a":1,})",
      R"([1,])",
      R"({"a" 1})",
      R"({"a":})",
      R"({a:1})",
      R"({"a":1}})",
      R"({"a":1} x)",
      R"({"a":01})",
      R"({"a":-})",
      R"({"a":1.})",
      R"({"a":.5})",
      R"({"a":+1})",
      R"({"a":tru})",
      R"({"a":nul})",
      R"({"a":True})",
      R"({"a":"unterminated})",
      "{\"a\":\"tab\there\"}",
      R"({"a":"bad \x escape"})",
      R"({"a":"ends in a backslash\)",
      R"(["a" "b"])",
      R"({"a":1 "b":2})",
      R"({"a":1,,"b":2})",
      R"([1 2])",
  };
  for (const char* text : malformed) {
    EXPECT_FALSE(fast(text).accepted) << text;
    EXPECT_FALSE(boost_parser(text).accepted) << text;  // the cases are truly malformed
  }
}

TEST(JsonFastPath, AHandlerThatStopsIsDeclined) {
  const std::string text = kCommon[0];
  for (int stop = 1; stop <= 12; ++stop) {
    EventLog log(stop);
    EXPECT_FALSE(read_common_json(text, log)) << stop;
    EXPECT_EQ(static_cast<int>(log.events().size()), stop);
  }
}

// Every lead byte from 0x80 up, followed by continuation bytes at the edges of the ranges that
// decide (and the sequence cut short): the fast path takes exactly what the parser takes.
TEST(JsonFastPath, TakesExactlyTheUtf8TheParserTakes) {
  const unsigned char edges[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff};
  int accepted = 0;
  for (unsigned lead = 0x80; lead <= 0xff; ++lead) {
    for (const unsigned char second : edges) {
      for (const unsigned char rest : {0x80, 0xbf, 0xc0}) {
        for (std::size_t length = 1; length <= 4; ++length) {
          const unsigned char bytes[] = {static_cast<unsigned char>(lead), second, rest, rest};
          std::string text = "[\"";
          text.append(reinterpret_cast<const char*>(bytes), length);
          text += "\"]";
          const Outcome ours = fast(text);
          const Outcome theirs = boost_parser(text);
          ASSERT_EQ(ours.accepted, theirs.accepted) << std::hex << lead << " " << int(second) << " " << length;
          if (ours.accepted) {
            ++accepted;
            ASSERT_EQ(ours.events, theirs.events);
          }
        }
      }
    }
  }
  EXPECT_GT(accepted, 100);
}

// Random edits of the common documents (a byte replaced by one that matters to JSON, removed,
// doubled, or the text cut short): whatever the fast path accepts of them, the parser accepts
// with the same events. Enough of them stay valid that acceptance itself is exercised.
TEST(JsonFastPath, AgreesWithTheParserOnEditedDocuments) {
  std::mt19937 random(20261202);
  const std::string alphabet =
      "{}[]:,\"\\ \t\n0123456789-+.eEtrufalsn/bx\x01\x7f\xc3\xa9u\xe2\x80\x9c\xf0\x9f\xed\xf4\xbf";
  int accepted = 0;
  int edits = 0;
  for (const char* original : kCommon) {
    const std::string base = original;
    for (int i = 0; i < 1500; ++i) {
      const std::string text = random_edit(base, alphabet, random);
      ++edits;
      accepted += fast(text).accepted ? 1 : 0;
      expect_agrees(text);
      if (HasFatalFailure()) {
        return;
      }
    }
  }
  EXPECT_GT(accepted, edits / 20);
}

// The search for a string's next special byte, at each width and through the one-block path, against
// a byte-by-byte search: every length to a few wide blocks, a special byte (or none) at every
// place, ordinary look-alikes around it, and special bytes just past the end, which a read past it
// would find.
TEST(JsonFastPath, FindsAStringsNextSpecialByteAtEveryWidth) {
  using namespace json_fast_path_detail;
  const std::string ordinary = std::string("!#[]~a ") + "\x7f\x21\x5b\x5d\x1f";  // 0x1f: a control
  const std::string special = std::string("\"\\\x01\x1f\x80\xc3\xff", 7);
  const auto reference = [](const char* p, const char* end) {
    while (p < end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20 &&
           static_cast<unsigned char>(*p) < 0x80) {
      ++p;
    }
    return p;
  };
  std::mt19937 random(32);
  for (std::size_t size = 0; size <= 120; ++size) {
    for (std::size_t place = 0; place <= size; ++place) {
      // 16 readable bytes before the view (the long search's promise), the view, 16 past it.
      std::string text(16 + size + 16, 'x');
      for (std::size_t i = 16; i < 16 + size; ++i) {
        text[i] = ordinary[random() % (ordinary.size() - 1)];  // no control among the ordinary ones
      }
      for (std::size_t i = 16 + size; i < text.size(); ++i) {
        text[i] = special[random() % special.size()];
      }
      if (place < size) {
        text[16 + place] = special[random() % special.size()];
      }
      const char* begin = text.data() + 16;
      const char* end = begin + size;
      const char* expected = reference(begin, end);
      ASSERT_EQ(next_special(begin, end), expected) << size << " " << place;
      ASSERT_EQ(next_special_long_narrow(begin, end), expected) << size << " " << place;
      ASSERT_EQ(next_special_long_wide(begin, end), expected) << size << " " << place;
    }
  }
  if (!next_special_has_wide()) {
    GTEST_SKIP() << "no AVX2 on this CPU: only the 16-byte search was checked";
  }
}

}  // namespace
}  // namespace infergate::openai
