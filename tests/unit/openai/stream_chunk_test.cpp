#include "openai/stream_chunk.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "openai/model_list.hpp"

namespace infergate::openai {
namespace {

TEST(StreamChunk, ContentDeltaCountsItsText) {
  ChunkView v;
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"index":0,"delta":{"content":" hello"},"finish_reason":null}]})", v));
  EXPECT_EQ(v.text_bytes, 6u);
  EXPECT_FALSE(v.finish_reason);
  EXPECT_FALSE(v.usage);
}

TEST(StreamChunk, RoleOnlyChunkCarriesNoText) {
  ChunkView v;
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})", v));
  EXPECT_EQ(v.text_bytes, 0u);
}

TEST(StreamChunk, ReasoningAndCompletionTextCount) {
  ChunkView v;
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"delta":{"reasoning_content":"abc"}}]})", v));
  EXPECT_EQ(v.text_bytes, 3u);
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"text":"abcd","finish_reason":"length"}]})", v));
  EXPECT_EQ(v.text_bytes, 4u);
  EXPECT_EQ(v.finish_reason, "length");
}

TEST(StreamChunk, UsageAndTrace) {
  ChunkView v;
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34},
      "infergate_trace":{"arrival_ns":1,"first_token_ns":2,"last_token_ns":3}})",
                                  v));
  ASSERT_TRUE(v.usage);
  EXPECT_EQ(v.usage->prompt_tokens, 12);
  EXPECT_EQ(v.usage->completion_tokens, 34);
  ASSERT_TRUE(v.trace);
  EXPECT_EQ(v.trace->first_token_ns, 2);
}

TEST(StreamChunk, GroqUsageUnderXGroq) {
  ChunkView v;
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[],"x_groq":{"usage":{"prompt_tokens":5,"completion_tokens":6}}})", v));
  ASSERT_TRUE(v.usage);
  EXPECT_EQ(v.usage->completion_tokens, 6);
}

TEST(StreamChunk, ErrorObjectAndMalformedJson) {
  ChunkView v;
  ASSERT_FALSE(parse_stream_chunk(R"({"error":{"message":"overloaded","type":"server_error"}})", v));
  EXPECT_EQ(v.error, "overloaded");
  EXPECT_TRUE(parse_stream_chunk(R"({"choices":[)", v));
  EXPECT_TRUE(parse_stream_chunk("42", v));
}

TEST(StreamChunk, WholeResponseReadsTheMessage) {
  ChunkView v;
  ASSERT_FALSE(parse_completion_response(
      R"({"choices":[{"message":{"role":"assistant","content":"four"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}})",
      v));
  EXPECT_EQ(v.text_bytes, 4u);
  EXPECT_EQ(v.finish_reason, "stop");
}

TEST(StreamChunk, GlanceAgreesWithTheFullParse) {
  struct Case {
    const char* data;
    bool text;
    bool needs_parse;
  };
  for (const Case& c : {
           Case{R"({"choices":[{"index":0,"delta":{"content":" hi"},"finish_reason":null}]})", true, false},
           Case{R"({"choices": [{"delta": {"content": " spaced"}}]})", true, false},
           Case{R"({"choices":[{"delta":{"role":"assistant","content":""}}]})", false, false},
           Case{R"({"choices":[{"delta":{"content":null}}]})", false, false},
           Case{R"({"choices":[{"text":"x","finish_reason":null}]})", true, false},
           Case{R"({"choices":[{"delta":{"reasoning_content":"think"}}]})", true, false},
           Case{R"({"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}})", false, true},
           Case{R"({"choices":[{"delta":{}}],"x_groq":{"usage":{"completion_tokens":2}}})", false, true},
           Case{R"({"error":{"message":"boom"}})", false, true},
           // OpenAI's chunks before the usage chunk, when include_usage is on
           Case{R"({"choices":[{"delta":{"content":" hi"}}],"usage":null})", true, false},
           Case{R"({"choices":[{"delta":{"content":" hi"}}],"usage": null,"x_groq":null})", true, false},
           Case{R"({"error":null,"choices":[{"delta":{}}]})", false, false},
       }) {
    const ChunkGlance g = glance_stream_chunk(c.data);
    EXPECT_EQ(g.text, c.text) << c.data;
    EXPECT_EQ(g.needs_parse, c.needs_parse) << c.data;
    ChunkView v;
    ASSERT_FALSE(parse_stream_chunk(c.data, v));
    EXPECT_EQ(v.text_bytes > 0, c.text) << c.data;
    EXPECT_EQ(v.usage.has_value() || v.error.has_value(), c.needs_parse) << c.data;
  }
  // A value cut short is no null: the parse gets to say what is wrong with it.
  EXPECT_TRUE(glance_stream_chunk(R"({"choices":[],"usage":nul)").needs_parse);
}

TEST(StreamChunk, GlanceAgreesWithItsScalarFormOnRandomEvents) {
  // Keys and values cut from real chunks and from the cases that make a glance wrong if it slips:
  // names of interest inside strings, escaped quotes, colons in values, every alignment to a block
  // of 16, 32 or 64 bytes (events shorter than a block and longer), names that end in the same
  // letter as one of interest or differ from it only in case or in the high bit (UTF-8). Each block
  // width the machine has is checked.
  const std::vector<std::string> keys = {"id",
                                         "content",
                                         "text",
                                         "usage",
                                         "error",
                                         "x_groq",
                                         "reasoning",
                                         "reasoning_content",
                                         "infergate_trace",
                                         "delta",
                                         "model",
                                         "a\\\"usage",
                                         "object",
                                         "role",
                                         "system_fingerprint",
                                         "Usage",
                                         "xcontent",
                                         "ERROR",
                                         "t",
                                         "",
                                         "contents",
                                         "g",
                                         "caf\xc3\xa9",
                                         "\xf4\xe5\xf2\xf1\xe7"};
  const std::vector<std::string> values = {R"("")",        R"(" hi")",          "null",    "1",  R"("a\"b:")",
                                           R"({"k":"v"})", R"("\"usage\":1")",  R"(":")",  "[]", R"("content")",
                                           R"("x":")",     "\"\xe2\x80\x9dt\"", "\"\xf4\""};
  std::mt19937 rng(11);
  for (int i = 0; i < 20000; ++i) {
    std::string event = std::string(rng() % 65, ' ') + "{";
    const int members = 1 + static_cast<int>(rng() % 8);
    for (int m = 0; m < members; ++m) {
      event += m == 0 ? "" : ",";
      event += "\"" + keys[rng() % keys.size()] + "\"" + std::string(rng() % 2, ' ') + ":" +
               std::string(rng() % 2, ' ') + values[rng() % values.size()];
    }
    event += "}";
    const ChunkGlance scalar = glance_stream_chunk_scalar(event);
    for (const ChunkGlance fast : {glance_stream_chunk(event), glance_stream_chunk_16(event),
                                   glance_stream_chunk_32(event), glance_stream_chunk_64(event)}) {
      ASSERT_EQ(fast.text, scalar.text) << event;
      ASSERT_EQ(fast.needs_parse, scalar.needs_parse) << event;
    }
  }
  if (!glance_has_32_byte_blocks() || !glance_has_64_byte_blocks()) {
    GTEST_SKIP() << "this CPU lacks AVX2 or AVX-512BW: the blocks it lacks were the next narrower ones";
  }
}

TEST(ModelList, RoundTripAndOllamaShape) {
  const std::vector<std::string> ids{"a", "b"};
  EXPECT_EQ(parse_model_list(model_list_json(ids, "me")), ids);
  EXPECT_EQ(parse_model_list(R"({"models":[{"name":"llama3"}]})"), std::vector<std::string>{"llama3"});
  EXPECT_FALSE(parse_model_list("[]"));
}

TEST(StreamChunk, CollectsTheAnswersTextButNotReasoning) {
  ChunkView v;
  std::string content;
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"delta":{"content":"Hel"}}]})", v, &content));
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"delta":{"reasoning_content":"hmm"}}]})", v, &content));
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"delta":{"content":"lo"}}]})", v, &content));
  EXPECT_EQ(content, "Hello");
  std::string text;
  ASSERT_FALSE(parse_completion_response(R"({"choices":[{"text":"plain"}]})", v, &text));
  EXPECT_EQ(text, "plain");
}

}  // namespace
}  // namespace infergate::openai
