#include "openai/usage_object.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "random_edits.hpp"

namespace infergate::openai {
namespace {

// Usage objects as providers send them, each with the counts it should read as.
struct Sent {
  std::string text;
  bool nested;
  std::int64_t prompt;
  std::int64_t completion;
};

const std::vector<Sent> kSent = {
    {R"({"prompt_tokens":128,"completion_tokens":60,"total_tokens":188})", false, 128, 60},
    // OpenAI
    {R"({"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":0,)"
     R"("audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,)"
     R"("accepted_prediction_tokens":0,"rejected_prediction_tokens":0}})",
     false, 19, 10},
    // vLLM
    {R"({"prompt_tokens":7,"total_tokens":23,"completion_tokens":16,"prompt_tokens_details":null})", false, 7, 16},
    // Groq, and Groq's x_groq
    {R"({"queue_time":0.017317748,"prompt_tokens":18,"prompt_time":0.000924266,"completion_tokens":7,)"
     R"("completion_time":0.025454545,"total_tokens":25,"total_time":0.026378811})",
     false, 18, 7},
    {R"({"id":"req_01jabc","usage":{"queue_time":0.02,"prompt_tokens":3,"completion_tokens":4}})", true, 3, 4},
    // OpenAI's Responses API
    {R"({"input_tokens":36,"input_tokens_details":{"cached_tokens":0},"output_tokens":87,)"
     R"("output_tokens_details":{"reasoning_tokens":0},"total_tokens":123})",
     false, 36, 87},
    {R"({"id":"resp_1","object":"response","status":"completed","usage":{"input_tokens":5,"output_tokens":6}})", true,
     5, 6},
    // pretty-printed, Ollama's OpenAI endpoint
    {"{\n  \"prompt_tokens\" : 26,\n  \"completion_tokens\" : 5,\n  \"total_tokens\" : 31\n}", false, 26, 5},
};

TEST(UsageObject, ReadsWhatProvidersSendWithoutTheParser) {
  for (const Sent& sent : kSent) {
    const SimpleUsage simple = read_simple_usage(sent.text, sent.nested);
    ASSERT_TRUE(simple.read) << sent.text;
    ASSERT_TRUE(simple.usage) << sent.text;
    EXPECT_EQ(simple.usage->prompt_tokens, sent.prompt) << sent.text;
    EXPECT_EQ(simple.usage->completion_tokens, sent.completion) << sent.text;
    const auto parsed = parse_usage_with_parser(sent.text, sent.nested);
    ASSERT_TRUE(parsed) << sent.text;
    EXPECT_EQ(parsed->prompt_tokens, sent.prompt) << sent.text;
    EXPECT_EQ(parsed->completion_tokens, sent.completion) << sent.text;
  }
}

TEST(UsageObject, DeclinesWhatItDoesNotReadInFull) {
  for (const char* text : {
           R"({"prompt_tokens":1,"note":"caf\u00e9"})",  // an escape
           R"({"prompt_tokens":1,"note":"café"})",       // a byte outside ASCII
           R"({"prompt_tokens":1,"list":[1,2]})",        // an array
           R"({"prompt_tokens":1,"ok":true})",           // true
           R"({"prompt_tokens":-1})",                    // a sign
           R"({"prompt_tokens":1e3})",                   // an exponent
           R"({"prompt_tokens":1234567890123456789})",   // 19 digits
           R"({"prompt_tokens":01})",                    // a leading zero
           R"({"prompt_tokens":1.})",                    // no fraction digits
           R"({"prompt_tokens":1} x)",                   // something after the object
           R"({"prompt_tokens":1)",                      // cut short
           R"({"a":{"b":{"c":{"d":{"e":{"f":1}}}}}})",   // deeper than it reads
           R"([])",                                      // not an object
       }) {
    EXPECT_FALSE(read_simple_usage(text, false).read) << text;
  }
}

TEST(UsageObject, CountsThatAreNotIntegersAreZeroAndTheLastUsageDecides) {
  const auto not_integers = parse_usage(R"({"prompt_tokens":"4","completion_tokens":null,"total_tokens":2.5})", false);
  ASSERT_TRUE(not_integers);
  EXPECT_EQ(not_integers->prompt_tokens, 0);
  EXPECT_EQ(not_integers->completion_tokens, 0);

  const auto last = parse_usage(R"({"usage":{"prompt_tokens":1},"usage":{"completion_tokens":2}})", true);
  ASSERT_TRUE(last);
  EXPECT_EQ(last->prompt_tokens, 0);
  EXPECT_EQ(last->completion_tokens, 2);

  EXPECT_FALSE(parse_usage(R"({"usage":{"prompt_tokens":1},"usage":null})", true));
  EXPECT_FALSE(parse_usage(R"({"id":"x"})", true));
  EXPECT_FALSE(parse_usage(R"({"prompt_tokens":1)", false));
}

// Whatever the simple reader reads, it reads as the parser does: on every usage object above and
// on random edits of them (a byte replaced by one that matters to the grammar, removed, doubled,
// or the text cut short), in both roles.
TEST(UsageObject, TheSimpleReaderAgreesWithTheParserHoweverTheTextIsEdited) {
  std::mt19937 random(20261203);
  const std::string alphabet = "{}[]:,\"\\ \n0123456789-.eEnulsagx_ \x01\xc3";
  int read = 0;
  int edits = 0;
  for (const Sent& sent : kSent) {
    for (const bool nested : {false, true}) {
      for (int i = 0; i < 3000; ++i) {
        const std::string text = i == 0 ? sent.text : random_edit(sent.text, alphabet, random);
        const SimpleUsage simple = read_simple_usage(text, nested);
        ++edits;
        if (!simple.read) {
          continue;
        }
        ++read;
        const auto parsed = parse_usage_with_parser(text, nested);
        ASSERT_EQ(simple.usage.has_value(), parsed.has_value()) << text;
        if (parsed) {
          ASSERT_EQ(simple.usage->prompt_tokens, parsed->prompt_tokens) << text;
          ASSERT_EQ(simple.usage->completion_tokens, parsed->completion_tokens) << text;
        }
      }
    }
  }
  EXPECT_GT(read, edits / 5);
}

}  // namespace
}  // namespace infergate::openai
