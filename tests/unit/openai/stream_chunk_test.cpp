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

// Events built from keys and values cut from real chunks and from the cases that make a glance
// wrong if it slips: names of interest inside strings, escaped quotes, colons in values, every
// alignment to a block of 16, 32 or 64 bytes (events shorter than a block and longer), names that
// end in the same letter as one of interest or differ from it only in case or in the high bit
// (UTF-8).
std::string random_event(std::mt19937& rng) {
  static const std::vector<std::string> keys = {
      "id", "content", "text", "usage", "error", "x_groq", "reasoning", "reasoning_content", "infergate_trace", "delta",
      "model", "a\\\"usage", "object", "role", "system_fingerprint", "Usage", "xcontent", "ERROR", "t", "", "contents",
      "g", "caf\xc3\xa9", "\xf4\xe5\xf2\xf1\xe7",
      // endings of a key of interest on a longer key
      "xtext", "_content", "xreasoning", "my_reasoning_content", "gate_trace", "not_x_groq"};
  static const std::vector<std::string> values = {R"("")",        R"(" hi")",          "null",    "1",  R"("a\"b:")",
                                                  R"({"k":"v"})", R"("\"usage\":1")",  R"(":")",  "[]", R"("content")",
                                                  R"("x":")",     "\"\xe2\x80\x9dt\"", "\"\xf4\""};
  std::string event = std::string(rng() % 65, ' ') + "{";
  const int members = 1 + static_cast<int>(rng() % 8);
  for (int m = 0; m < members; ++m) {
    event += m == 0 ? "" : ",";
    event += "\"" + keys[rng() % keys.size()] + "\"" + std::string(rng() % 2, ' ') + ":" + std::string(rng() % 2, ' ') +
             values[rng() % values.size()];
  }
  return event + "}";
}

TEST(StreamChunk, GlanceAgreesWithItsScalarFormOnRandomEvents) {
  // Each block width the machine has is checked.
  std::mt19937 rng(11);
  for (int i = 0; i < 20000; ++i) {
    const std::string event = random_event(rng);
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

TEST(StreamChunk, GlanceOfALineAgreesWithTwoPassesOnRandomLines) {
  // Events cut anywhere (a key or value the break cuts short, such as `"content":"` or
  // `"usage":nu`), then a line ending of each kind or none, then more of the stream, whose keys
  // must not count.
  const std::vector<std::string> breaks = {"\n\n", "\n", "\r\n\r\n", "\r", ""};
  std::mt19937 rng(12);
  for (int i = 0; i < 20000; ++i) {
    std::string line = " " + random_event(rng);
    if (rng() % 2 == 0) {
      line.resize(rng() % (line.size() + 1));
    }
    const std::string& line_break = breaks[rng() % breaks.size()];
    const std::string stream = line + line_break + (line_break.empty() ? "" : "data: " + random_event(rng));
    const LineGlance two = glance_stream_line_two_passes(stream);
    const LineGlance one = glance_stream_line(stream);
    ASSERT_EQ(two.line_end, line_break.empty() ? std::string::npos : line.size()) << stream;
    ASSERT_EQ(one.line_end, two.line_end) << stream;
    const ChunkGlance scalar = glance_stream_chunk_scalar(line);
    ASSERT_EQ(two.glance.text, scalar.text) << stream;
    ASSERT_EQ(two.glance.needs_parse, scalar.needs_parse) << stream;
    ASSERT_EQ(one.glance.text, scalar.text) << stream;
    ASSERT_EQ(one.glance.needs_parse, scalar.needs_parse) << stream;
  }
  EXPECT_EQ(glance_stream_line_is_one_pass(), glance_has_64_byte_blocks());
  if (!glance_has_64_byte_blocks()) {
    GTEST_SKIP() << "this CPU lacks AVX-512BW: the glance of a line was the two passes themselves";
  }
}

TEST(StreamChunk, GlanceOfALineStopsAtItsEnd) {
  // A value the line's end cuts short, at every place against the blocks: its key may lie in the
  // block before the one that holds the end.
  for (std::size_t pad = 0; pad < 140; ++pad) {
    const std::string text_cut = std::string(pad, ' ') + R"({"content":")";
    const LineGlance text = glance_stream_line(text_cut + "\n\" more\"}");
    EXPECT_EQ(text.line_end, text_cut.size());
    EXPECT_FALSE(text.glance.text) << pad;
    const std::string usage_cut = std::string(pad, ' ') + R"({"usage":nu)";
    EXPECT_TRUE(glance_stream_line(usage_cut + "\rll}").glance.needs_parse) << pad;
    EXPECT_FALSE(glance_stream_line(usage_cut + "ll}\r").glance.needs_parse) << pad;
  }
  const LineGlance cut_text = glance_stream_line(" {\"choices\":[{\"delta\":{\"content\":\"\n\"x\"}}]}");
  EXPECT_EQ(cut_text.line_end, 34u);
  EXPECT_FALSE(cut_text.glance.text);
  EXPECT_TRUE(glance_stream_line(R"({"choices":[],"usage":nu)"
                                 "\r\nll}")
                  .glance.needs_parse);
  const LineGlance next_line = glance_stream_line(R"({"id":1})"
                                                  "\n\n"
                                                  R"(data: {"usage":{"prompt_tokens":1}})");
  EXPECT_EQ(next_line.line_end, 8u);
  EXPECT_FALSE(next_line.glance.needs_parse);
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
