#include "openai/chunk_glance.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "openai/stream_chunk.hpp"

namespace infergate::openai {
namespace {

TEST(ChunkGlance, AgreesWithTheFullParse) {
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
           // A tool call: its first chunk names the function, the rest carry its arguments.
           Case{R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",)"
                R"("function":{"name":"get_weather","arguments":""}}]}}]})",
                true, false},
           Case{R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city"}}]}}]})", true,
                false},
           Case{R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":""}}]}}]})", false, false},
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
      "xtext", "_content", "xreasoning", "my_reasoning_content", "gate_trace", "not_x_groq",
      // a tool call's keys, and keys that end as they do
      "name", "arguments", "tool_calls", "choices", "xname", "my_arguments", "names", "guments", "Name"};
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

TEST(ChunkGlance, AgreesWithItsScalarFormOnRandomEvents) {
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

TEST(ChunkGlance, OfALineAgreesWithTwoPassesOnRandomLines) {
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
  if (!glance_has_64_byte_blocks()) {
    GTEST_SKIP() << "this CPU lacks AVX-512BW: the glance of a line was the two passes themselves";
  }
}

TEST(ChunkGlance, OfALineStopsAtItsEnd) {
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

// A stream of events as the generator below made it, with what a run must make of each.
struct MadeEvent {
  std::size_t begin = 0;
  std::size_t end = 0;  // past its blank line
  bool usual = false;   // one data line and a blank line
  // Of a usual one: where its data (its line after "data:" and one space) lies in the stream.
  std::size_t data_begin = 0;
  std::size_t data_size = 0;
};

// Events of every kind a run takes (one data line, with or without the space, each break CR, LF
// or CRLF) and of the kinds it must leave to the parser (comments, fields, two data lines).
std::vector<MadeEvent> random_stream(std::mt19937& rng, std::string& stream) {
  const std::vector<std::string> breaks = {"\n", "\r\n", "\r"};
  const std::vector<std::string> unusual = {": keep-alive\n\n",
                                            "id: 7\ndata: {\"content\":\"x\"}\n\n",
                                            "event: message\ndata: {}\n\n",
                                            "data: {}\ndata: {}\n\n",
                                            "retry: 5\n\n",
                                            "data\n\n"};
  std::vector<MadeEvent> events;
  const int count = 1 + static_cast<int>(rng() % 6);
  for (int i = 0; i < count; ++i) {
    MadeEvent e;
    e.begin = stream.size();
    if (rng() % 8 == 0) {
      stream += unusual[rng() % unusual.size()];
    } else {
      e.usual = true;
      // random_event() may begin with spaces: only the first is not the data's.
      const std::string value = (rng() % 2 == 0 ? " " : "") + (rng() % 10 == 0 ? "[DONE]" : random_event(rng));
      const std::string& line_break = breaks[rng() % breaks.size()];
      // A CR then an LF would be one break, not a line's end and a blank line.
      const std::string& blank = line_break == "\r" ? breaks[1 + rng() % 2] : breaks[rng() % breaks.size()];
      stream.append("data:").append(value).append(line_break).append(blank);
      e.data_begin = e.begin + 5 + (value.starts_with(' ') ? 1 : 0);
      e.data_size = e.begin + 5 + value.size() - e.data_begin;
    }
    e.end = stream.size();
    events.push_back(e);
  }
  return events;
}

TEST(ChunkGlance, ARunTakesTheWholeUsualEventsAndStopsAfterOneToParse) {
  std::mt19937 rng(13);
  for (int i = 0; i < 20000; ++i) {
    std::string stream;
    const std::vector<MadeEvent> events = random_stream(rng, stream);
    const std::size_t cut = rng() % 3 == 0 ? stream.size() : rng() % (stream.size() + 1);
    const std::string_view bytes = std::string_view(stream).substr(0, cut);
    EventRun expected;
    for (const MadeEvent& e : events) {
      // A CR that ends the bytes may be the first half of a CRLF: the event is not known whole.
      if (!e.usual || e.end > cut || (e.end == cut && stream[e.end - 1] == '\r')) {
        break;
      }
      const std::string_view data = std::string_view(stream).substr(e.data_begin, e.data_size);
      const ChunkGlance g = glance_stream_chunk_scalar(data);
      expected.end = e.end;
      expected.text_events += g.text ? 1 : 0;
      if (g.needs_parse) {
        expected.parse_last = true;
        expected.last_begin = e.begin;
        expected.last_data = data;
        break;
      }
    }
    for (const auto run : {glance_event_run, glance_event_run_two_passes}) {
      const EventRun got = run(bytes);
      ASSERT_EQ(got.end, expected.end) << bytes;
      ASSERT_EQ(got.text_events, expected.text_events) << bytes;
      ASSERT_EQ(got.parse_last, expected.parse_last) << bytes;
      if (expected.parse_last) {
        ASSERT_EQ(got.last_begin, expected.last_begin) << bytes;
        ASSERT_EQ(got.last_data.data(), expected.last_data.data()) << bytes;
        ASSERT_EQ(got.last_data.size(), expected.last_data.size()) << bytes;
      }
    }
  }
}

TEST(ChunkGlance, ARunOfAChatStream) {
  const std::string token = R"(data: {"choices":[{"delta":{"content":" hi"}}],"usage":null})"
                            "\n\n";
  const std::string role = R"(data: {"choices":[{"delta":{"role":"assistant","content":""}}],"usage":null})"
                           "\n\n";
  const std::string usage = R"(data: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2}})"
                            "\n\n";
  const std::string done = "data: [DONE]\n\n";
  const std::string stream = role + token + token + usage + done;
  const EventRun to_usage = glance_event_run(stream);
  EXPECT_EQ(to_usage.end, stream.size() - done.size());
  EXPECT_EQ(to_usage.text_events, 2);
  ASSERT_TRUE(to_usage.parse_last);
  EXPECT_EQ(to_usage.last_begin, role.size() + 2 * token.size());
  EXPECT_EQ(to_usage.last_data, usage.substr(6, usage.size() - 8));
  const EventRun rest = glance_event_run(done);
  EXPECT_EQ(rest.end, done.size());
  EXPECT_EQ(rest.text_events, 0);
  EXPECT_FALSE(rest.parse_last);
  // A read that ends inside an event: the run stops before it, wherever it was cut.
  for (std::size_t cut = 0; cut < token.size(); ++cut) {
    const EventRun cut_short = glance_event_run(std::string_view(role + token).substr(0, role.size() + cut));
    EXPECT_EQ(cut_short.end, role.size()) << cut;
    EXPECT_EQ(cut_short.text_events, 0) << cut;
  }
}

}  // namespace
}  // namespace infergate::openai
