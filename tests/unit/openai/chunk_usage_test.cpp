#include "openai/chunk_usage.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace infergate::openai {
namespace {

// read_chunk_usage answers what parse_stream_chunk's DOM answers, for every chunk here.
void expect_as_the_dom_reads(std::string_view data) {
  ChunkView view;
  const bool read = !parse_stream_chunk(data, view) && !view.error;
  const std::optional<ChunkUsage> chunk = read_chunk_usage(data);
  ASSERT_EQ(chunk.has_value(), read) << data;
  if (!chunk) {
    return;
  }
  EXPECT_EQ(chunk->has_choices, view.has_choices) << data;
  ASSERT_EQ(chunk->usage.has_value(), view.usage.has_value()) << data;
  if (view.usage) {
    EXPECT_EQ(chunk->usage->prompt_tokens, view.usage->prompt_tokens) << data;
    EXPECT_EQ(chunk->usage->completion_tokens, view.usage->completion_tokens) << data;
  }
}

TEST(ChunkUsage, ReadsTheUsageOnlyChunkOfIncludeUsage) {
  const auto chunk = read_chunk_usage(
      R"({"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],)"
      R"("usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46,"prompt_tokens_details":{"cached_tokens":0}}})");
  ASSERT_TRUE(chunk);
  EXPECT_FALSE(chunk->has_choices);
  ASSERT_TRUE(chunk->usage);
  EXPECT_EQ(chunk->usage->prompt_tokens, 12);
  EXPECT_EQ(chunk->usage->completion_tokens, 34);
}

TEST(ChunkUsage, ReadsGroqsUsageAndTellsAChunkWithChoices) {
  const auto chunk = read_chunk_usage(
      R"({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],)"
      R"("x_groq":{"id":"req_1","usage":{"queue_time":0.01,"prompt_tokens":3,"completion_tokens":4}}})");
  ASSERT_TRUE(chunk);
  EXPECT_TRUE(chunk->has_choices);
  ASSERT_TRUE(chunk->usage);
  EXPECT_EQ(chunk->usage->prompt_tokens, 3);
  EXPECT_EQ(chunk->usage->completion_tokens, 4);
}

TEST(ChunkUsage, AnErrorOrWhatIsNotAnObjectHasNoUsage) {
  EXPECT_FALSE(read_chunk_usage(R"({"error":{"message":"overloaded"},"usage":{"prompt_tokens":1}})"));
  EXPECT_FALSE(read_chunk_usage(R"({"usage":{"prompt_tokens":1}})"
                                " trailing"));
  EXPECT_FALSE(read_chunk_usage(R"([{"usage":{"prompt_tokens":1}}])"));
  EXPECT_FALSE(read_chunk_usage(""));
  const auto with_null_error = read_chunk_usage(R"({"error":null,"usage":{"prompt_tokens":1}})");
  ASSERT_TRUE(with_null_error);
  EXPECT_TRUE(with_null_error->usage);
}

TEST(ChunkUsage, AgreesWithTheDomOnEveryShapeOfChunk) {
  const std::vector<std::string> chunks = {
      // The usual shapes.
      R"({"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34}})",
      R"({"choices":[{"delta":{"content":"hi"}}],"usage":{"prompt_tokens":1,"completion_tokens":2}})",
      R"({"choices":[{"delta":{"content":"hi"}}],"usage":null})",
      R"({"choices":[{"delta":{}}],"x_groq":{"usage":{"prompt_tokens":3,"completion_tokens":4}}})",
      R"({"choices":[{"delta":{}}],"infergate_trace":{"arrival_ns":1}})",
      "{\n  \"choices\" : [ ] ,\n  \"usage\" : {\n    \"prompt_tokens\" : 9 ,\n    \"completion_tokens\" : 1\n  }\n}\n",
      // Where usage comes from when both or neither is an object.
      R"({"usage":{"prompt_tokens":1,"completion_tokens":2},"x_groq":{"usage":{"prompt_tokens":3}}})",
      R"({"usage":null,"x_groq":{"usage":{"prompt_tokens":3,"completion_tokens":4}}})",
      R"({"usage":5,"x_groq":{"usage":{"prompt_tokens":3}}})",
      R"({"usage":[{"prompt_tokens":3}]})",
      R"({"x_groq":{"usage":null}})",
      R"({"x_groq":[{"usage":{"prompt_tokens":3}}]})",
      R"({"x_groq":{"a":{"usage":{"prompt_tokens":3}}}})",
      R"({"x_groq":5,"usage":"none"})",
      // Counts that are not plain integers, and names like the counts elsewhere.
      R"({"usage":{"prompt_tokens":1.5,"completion_tokens":"3"}})",
      R"({"usage":{"prompt_tokens":-1,"completion_tokens":18446744073709551615}})",
      R"({"usage":{"prompt_tokens":true,"completion_tokens":null}})",
      R"({"usage":{"prompt_tokens":{"n":1},"completion_tokens":[2]}})",
      R"({"usage":{"details":{"prompt_tokens":99},"prompt_tokens":1,"completion_tokens":2}})",
      R"({"choices":[{"usage":{"prompt_tokens":9}}],"prompt_tokens":7})",
      R"({"prompt_tokens":7,"completion_tokens":8})",
      // Choices of every kind.
      R"({"choices":{},"usage":{"prompt_tokens":1}})",
      R"({"choices":null,"usage":{"prompt_tokens":1}})",
      R"({"choices":[[]],"usage":{"prompt_tokens":1}})",
      R"({"choices":[null],"usage":{"prompt_tokens":1}})",
      R"({"choices":[1],"usage":{"prompt_tokens":1}})",
      R"({"choices":"[1]","usage":{"prompt_tokens":1}})",
      R"({"a":{"choices":[1]},"usage":{"prompt_tokens":1}})",
      // Names written twice: the last one counts.
      R"({"usage":{"prompt_tokens":1},"usage":null,"x_groq":{"usage":{"prompt_tokens":3}}})",
      R"({"usage":null,"usage":{"prompt_tokens":2}})",
      R"({"usage":{"prompt_tokens":1,"prompt_tokens":2}})",
      R"({"choices":[],"choices":[1],"usage":{}})",
      R"({"choices":[1],"choices":[],"usage":{}})",
      R"({"x_groq":{"usage":{"prompt_tokens":3}},"x_groq":{"id":"r"}})",
      R"({"error":{"message":"x"},"error":null,"usage":{"prompt_tokens":1}})",
      R"({"error":null,"error":"late","usage":{"prompt_tokens":1}})",
      // Errors.
      R"({"error":"overloaded"})",
      R"({"error":{"message":"overloaded","type":"server_error"}})",
      R"({"error":false,"usage":{"prompt_tokens":1}})",
      R"({"error":[],"usage":{"prompt_tokens":1}})",
      // Names spelled with escapes, and long names that begin like the ones read.
      R"({"us\u0061ge":{"prompt_tok\u0065ns":4}})",
      R"({"usage_of_a_very_long_name_indeed":{"prompt_tokens":4},"choices_and_more_choices_here":[1]})",
      R"({"x_groq_usage":{"usage":{"prompt_tokens":4}}})",
      // Not an object, or not JSON.
      R"([])",
      R"("usage")",
      R"(null)",
      R"({"usage":{"prompt_tokens":1})",
      R"({"usage":{"prompt_tokens":1}},)",
      R"({"usage":{"prompt_tokens":01}})",
      R"({"choices":[],})",
      "{\"content\":\"\xff\xfe\"}",
      "{\"content\":\"tab\there\"}",
      "",
      "   ",
  };
  for (const std::string& chunk : chunks) {
    expect_as_the_dom_reads(chunk);
  }
}

}  // namespace
}  // namespace infergate::openai
