#include "openai/usage_scanner.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "random_edits.hpp"

namespace infergate::openai {
namespace {

const std::string kChat =
    R"({"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":)"
    R"({"role":"assistant","content":"a \"usage\":{\"prompt_tokens\":999} {[ and \\"},"finish_reason":"stop",)"
    R"("usage":{"prompt_tokens":5}}],"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46,)"
    R"("prompt_tokens_details":{"cached_tokens":0}}})";

std::optional<Usage> scan_in_pieces(std::string_view body, std::size_t piece) {
  UsageScanner scanner;
  for (std::size_t at = 0; at < body.size(); at += piece) {
    scanner.feed(body.substr(at, piece));
  }
  return scanner.complete_object() ? scanner.usage() : std::nullopt;
}

TEST(UsageScanner, FindsTheTopLevelUsageAndNothingNestedOrQuoted) {
  for (std::size_t piece : {std::size_t{1}, std::size_t{2}, std::size_t{7}, kChat.size()}) {
    const auto usage = scan_in_pieces(kChat, piece);
    ASSERT_TRUE(usage) << piece;
    EXPECT_EQ(usage->prompt_tokens, 12) << piece;
    EXPECT_EQ(usage->completion_tokens, 34) << piece;
  }
}

TEST(UsageScanner, ReadsPrettyPrintedBodies) {
  const std::string body =
      "{\n  \"model\" : \"m\",\n  \"choices\" : [ { \"text\" : \"a\" } ],\n"
      "  \"usage\" : {\n    \"prompt_tokens\" : 9,\n    \"completion_tokens\" : 1\n  }\n}\n";
  for (std::size_t piece : {std::size_t{1}, std::size_t{3}, body.size()}) {
    const auto usage = scan_in_pieces(body, piece);
    ASSERT_TRUE(usage) << piece;
    EXPECT_EQ(usage->prompt_tokens, 9);
    EXPECT_EQ(usage->completion_tokens, 1);
  }
}

TEST(UsageScanner, ReadsGroqsUsageUnderXGroq) {
  UsageScanner scanner;
  scanner.feed(R"( {"choices":[],"x_groq":{"id":"req_1","usage":{"prompt_tokens":3,"completion_tokens":4}}})");
  ASSERT_TRUE(scanner.complete_object());
  ASSERT_TRUE(scanner.usage());
  EXPECT_EQ(scanner.usage()->completion_tokens, 4);
}

TEST(UsageScanner, ReadsOnlyTheUsageObjectUnderXGroqAndOnlyIntegers) {
  UsageScanner scanner;
  scanner.feed(R"({"x_groq":{"other":{"prompt_tokens":99},"usage":{"prompt_tokens":3,"completion_tokens":"4",)"
               R"("queue_time":0.1,"details":{"completion_tokens":5}},"after":{"completion_tokens":77}}})");
  ASSERT_TRUE(scanner.complete_object());
  const auto usage = scanner.usage();
  ASSERT_TRUE(usage);
  EXPECT_EQ(usage->prompt_tokens, 3);
  EXPECT_EQ(usage->completion_tokens, 0);  // a string is not a count
}

TEST(UsageScanner, TheLastUsageMemberCountsWhetherOrNotItArrivesInOnePiece) {
  const std::string body = R"({"usage":{"prompt_tokens":1,"completion_tokens":1},"n":1,)"
                           R"("usage":{"prompt_tokens":2,"completion_tokens":3}})";
  // Whole, split inside the second object only, and split inside both.
  for (std::size_t piece : {body.size(), std::size_t{70}, std::size_t{5}}) {
    const auto usage = scan_in_pieces(body, piece);
    ASSERT_TRUE(usage) << piece;
    EXPECT_EQ(usage->prompt_tokens, 2) << piece;
    EXPECT_EQ(usage->completion_tokens, 3) << piece;
  }
}

TEST(UsageScanner, AnEscapedNameIsNotUsage) {
  UsageScanner scanner;
  scanner.feed(R"({"a\"usage":{"prompt_tokens":1},"n":1})");
  EXPECT_TRUE(scanner.complete_object());
  EXPECT_FALSE(scanner.usage());
}

TEST(UsageScanner, ScalarOrArrayUsageIsIgnored) {
  UsageScanner scanner;
  scanner.feed(R"({"usage":"none","next":{"prompt_tokens":1},"x_groq":[{"usage":{}}]})");
  EXPECT_TRUE(scanner.complete_object());
  EXPECT_FALSE(scanner.usage());
}

TEST(UsageScanner, ATruncatedBodyOrAnotherDocumentHasNoUsage) {
  UsageScanner truncated;
  truncated.feed(std::string_view(kChat).substr(0, kChat.size() - 1));
  EXPECT_FALSE(truncated.complete_object());
  EXPECT_FALSE(truncated.usage());

  UsageScanner html;
  html.feed("<html>{\"usage\":{\"prompt_tokens\":1}}</html>");
  EXPECT_FALSE(html.complete_object());
  EXPECT_FALSE(html.usage());
}

TEST(UsageScanner, ABodyLargerThanAnyBufferIsScannedWhole) {
  // An embeddings answer of several megabytes with its usage at the very end.
  std::string body = R"({"object":"list","data":[)";
  for (int i = 0; i < 40'000; ++i) {
    body += R"({"object":"embedding","index":0,"embedding":[0.125,-0.5,0.75,1e-3]},)";
  }
  body += R"({"index":1}],"model":"e","usage":{"prompt_tokens":77,"total_tokens":77}})";
  ASSERT_GT(body.size(), std::size_t{2} << 20);
  const auto usage = scan_in_pieces(body, 16 << 10);
  ASSERT_TRUE(usage);
  EXPECT_EQ(usage->prompt_tokens, 77);
  EXPECT_EQ(usage->completion_tokens, 0);
}

struct Scan {
  bool complete = false;
  std::optional<Usage> usage;
};

Scan scan(std::string_view body, std::size_t piece) {
  UsageScanner scanner;
  for (std::size_t at = 0; at < body.size(); at += piece) {
    scanner.feed(body.substr(at, piece));
  }
  return {scanner.complete_object(), scanner.usage()};
}

// A body that arrives whole is read member by member; one that arrives in pieces goes through the
// state machine. Both readings agree on every body here and on random edits of them (a byte
// replaced by one that matters to the scan, removed, doubled, or the body cut short).
TEST(UsageScanner, ABodyInOnePieceReadsAsInManyPiecesHoweverItIsEdited) {
  const std::vector<std::string> bodies = {
      kChat,
      R"( {"choices":[],"x_groq":{"id":"req_1","usage":{"prompt_tokens":3,"completion_tokens":4}}} )",
      R"({"usage":{"prompt_tokens":1,"completion_tokens":1},"n":1,"usage":{"prompt_tokens":2}})",
      R"({"usage":"none","next":{"prompt_tokens":1},"x_groq":[{"usage":{}}],"b":true,"c":null})",
      "{\n  \"model\" : \"m\",\n  \"usage\" : {\n    \"prompt_tokens\" : 9\n  }\n}\n",
      R"({"a\"usage":{"prompt_tokens":1},"usage" :{"completion_tokens":8},"s":"\\","t":"x\"}"})",
      R"({})",
      // A run of backslashes across the edge of a 64-byte block; an edit that makes it odd
      // escapes the quote after it.
      R"({"id":"a","s":")" + std::string(100, '\\') + R"(","usage":{"prompt_tokens":3},"t":"\\\"}")" + "}",
  };
  std::mt19937 random(20261202);
  const std::string alphabet = "{}[]:,\"\\ \n0123456789-.eusagx_ ";
  int complete = 0;
  int edits = 0;
  for (const std::string& base : bodies) {
    for (int i = 0; i < 2000; ++i) {
      const std::string body = i == 0 ? base : random_edit(base, alphabet, random);
      const Scan whole = scan(body, body.size() + 1);
      const Scan bytes = scan(body, 1);
      ++edits;
      complete += whole.complete ? 1 : 0;
      ASSERT_EQ(whole.complete, bytes.complete) << body;
      ASSERT_EQ(whole.usage.has_value(), bytes.usage.has_value()) << body;
      if (whole.usage) {
        ASSERT_EQ(whole.usage->prompt_tokens, bytes.usage->prompt_tokens) << body;
        ASSERT_EQ(whole.usage->completion_tokens, bytes.usage->completion_tokens) << body;
      }
    }
  }
  EXPECT_GT(complete, edits / 4);
}

}  // namespace
}  // namespace infergate::openai
