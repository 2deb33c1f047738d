#include "gateway/sse_relay.hpp"

#include <gtest/gtest.h>

namespace infergate::gateway {
namespace {

const std::string kRole = R"(data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})"
                          "\n\n";
const std::string kToken = R"(data: {"choices":[{"index":0,"delta":{"content":" hi"}}]})"
                           "\n\n";
const std::string kFinish = R"(data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})"
                            "\n\n";
const std::string kUsage = R"(data: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2}})"
                           "\n\n";
const std::string kDone = "data: [DONE]\n\n";

struct Relayed {
  std::string out;
  SseRelay relay;
};

// Feeds `stream` in two pieces split at `cut`; the first piece arrives at t=100, the second at t=200.
std::string joined(std::span<const std::string_view> pieces) {
  std::string out;
  for (const std::string_view piece : pieces) {
    out.append(piece);
  }
  return out;
}

// Feeds `stream` in two pieces split at `cut`; the first piece arrives at t=100, the second at t=200.
Relayed relay_split(const std::string& stream, std::size_t cut, bool strip,
                    EventDialect dialect = EventDialect::choices) {
  Relayed r{{}, SseRelay(strip, dialect)};
  r.relay.feed(std::string_view(stream).substr(0, cut), 100);
  r.out.append(joined(r.relay.pieces()));
  r.relay.feed(std::string_view(stream).substr(cut), 200);
  r.relay.finish(200);
  r.out.append(joined(r.relay.pieces()));
  return r;
}

TEST(SseRelay, StripsOnlyTheUsageChunkItAskedForAtEverySplit) {
  const std::string stream = kRole + kToken + kToken + kFinish + kUsage + kDone;
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    const Relayed stripped = relay_split(stream, cut, true);
    ASSERT_EQ(stripped.out, kRole + kToken + kToken + kFinish + kDone) << "cut at " << cut;
    ASSERT_TRUE(stripped.relay.usage()) << "cut at " << cut;
    EXPECT_EQ(stripped.relay.usage()->completion_tokens, 2);
    const Relayed kept = relay_split(stream, cut, false);
    ASSERT_EQ(kept.out, stream) << "cut at " << cut;
  }
}

TEST(SseRelay, ReadsOpenAIsUsageChunkAfterChunksOfNullUsage) {
  // Asked for usage, OpenAI puts "usage":null in every chunk before the usage chunk.
  const std::string token = R"(data: {"choices":[{"index":0,"delta":{"content":" hi"}}],"usage":null})"
                            "\n\n";
  const std::string finish = R"(data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null})"
                             "\n\n";
  const std::string stream = token + token + finish + kUsage + kDone;
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    const Relayed r = relay_split(stream, cut, true);
    ASSERT_EQ(r.out, token + token + finish + kDone) << "cut at " << cut;
    ASSERT_TRUE(r.relay.usage()) << "cut at " << cut;
    EXPECT_EQ(r.relay.usage()->prompt_tokens, 7);
    EXPECT_EQ(r.relay.text_events(), 2);
  }
}

TEST(SseRelay, TimesTheFirstAndLastTextEvents) {
  const std::string stream = kRole + kToken + kToken + kFinish + kDone;
  const std::size_t cut = (kRole + kToken).size();
  const Relayed r = relay_split(stream, cut, true);
  EXPECT_EQ(r.relay.first_token_ns(), 100);
  EXPECT_EQ(r.relay.last_token_ns(), 200);
}

TEST(SseRelay, ATurnThatOnlyCallsAToolIsTimedByTheCallsChunks) {
  // The call's first chunk names the function; its arguments follow; no content at all.
  const std::string role = R"(data: {"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]})"
                           "\n\n";
  const std::string named = R"(data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1",)"
                            R"("type":"function","function":{"name":"get_weather","arguments":""}}]}}]})"
                            "\n\n";
  const std::string argument = R"(data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,)"
                               R"("function":{"arguments":"{\"city\":\"Paris\"}"}}]}}]})"
                               "\n\n";
  const std::string finish = R"(data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})"
                             "\n\n";
  const std::string stream = role + named + argument + finish + kUsage + kDone;
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    const Relayed r = relay_split(stream, cut, true);
    ASSERT_EQ(r.out, role + named + argument + finish + kDone) << "cut at " << cut;
    EXPECT_EQ(r.relay.text_events(), 2) << "cut at " << cut;
    EXPECT_EQ(r.relay.first_token_ns(), cut >= (role + named).size() ? 100 : 200) << "cut at " << cut;
    EXPECT_EQ(r.relay.last_token_ns(), cut >= (role + named + argument).size() ? 100 : 200) << "cut at " << cut;
  }
}

TEST(SseRelay, UsageOnTheLastChoiceChunkIsKeptAndRead) {
  // Some servers put usage on a chunk that still has choices: nothing can be dropped then.
  const std::string last =
      R"(data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":3}})"
      "\n\n";
  const Relayed r = relay_split(kToken + last + kDone, 0, true);
  EXPECT_EQ(r.out, kToken + last + kDone);
  EXPECT_EQ(r.relay.usage()->completion_tokens, 3);
}

TEST(SseRelay, StripsTheUsageChunkFromACrLfStreamAtEverySplit) {
  auto crlf = [](std::string text) {
    for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 2)) {
      text.replace(at, 1, "\r\n");
    }
    return text;
  };
  const std::string stream = crlf(kToken + kFinish + kUsage + kDone);
  const std::string expected = crlf(kToken + kFinish + kDone);
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    const Relayed r = relay_split(stream, cut, true);
    ASSERT_EQ(r.out, expected) << "cut at " << cut;
    ASSERT_TRUE(r.relay.usage()) << "cut at " << cut;
  }
}

TEST(SseRelay, PassesTheUpstreamBytesThroughAsTheyCame) {
  // Comments (keep-alives a client's idle timer relies on), CRLF and named events are kept as sent.
  const std::string stream =
      ": keep-alive\r\n\r\nevent: error\r\nid: 7\r\ndata: {\"error\":{\"message\":\"x\"}}\r\n\r\n" + kDone;
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    EXPECT_EQ(relay_split(stream, cut, true).out, stream) << "cut at " << cut;
  }
}

TEST(SseRelay, WholeEventsGoOutWithoutACopyAndAPartialOneWaitsForItsEnd) {
  SseRelay relay(true);
  const std::string first = kRole + kToken + kToken.substr(0, 10);
  relay.feed(first, 1);
  ASSERT_EQ(relay.pieces().size(), 1u);
  EXPECT_EQ(relay.pieces()[0], kRole + kToken);
  EXPECT_EQ(relay.pieces()[0].data(), first.data());  // a view of the read itself
  // The held part, then this read around the usage chunk: views, not a copy of the read.
  const std::string rest = kToken.substr(10) + kUsage + kDone;
  relay.feed(rest, 2);
  EXPECT_EQ(joined(relay.pieces()), kToken + kDone);
  ASSERT_EQ(relay.pieces().size(), 3u);
  EXPECT_EQ(relay.pieces()[1].data(), rest.data());
  EXPECT_EQ(relay.pieces()[2].data(), rest.data() + rest.size() - kDone.size());
  EXPECT_EQ(relay.text_events(), 2);
}

TEST(SseRelay, AnEventLongerThanTheLimitIsSaidToBeSoWhileItWaitsForItsEnd) {
  const std::size_t limit = kToken.size() + 4;
  SseRelay relay(true, EventDialect::choices, limit);
  // Whole events of any length go out; only what waits for its end counts.
  relay.feed(kToken + kToken + kToken, 1);
  EXPECT_FALSE(relay.event_too_long());
  relay.feed("data: " + std::string(limit - 6, 'x'), 2);
  EXPECT_FALSE(relay.event_too_long());  // exactly the limit
  relay.feed("x", 3);
  EXPECT_TRUE(relay.event_too_long());
  EXPECT_EQ(relay.max_event_bytes(), limit);
}

TEST(SseRelay, AnEventThatEndsWithinTheLimitGoesOutWhole) {
  SseRelay relay(true, EventDialect::choices, kToken.size());
  const std::string reads[] = {kToken.substr(0, 20), kToken.substr(20, 20), kToken.substr(40) + kToken.substr(0, 5)};
  relay.feed(reads[0], 1);
  relay.feed(reads[1], 2);
  EXPECT_FALSE(relay.event_too_long());
  relay.feed(reads[2], 3);  // the pieces are views of the reads
  EXPECT_FALSE(relay.event_too_long());
  EXPECT_EQ(joined(relay.pieces()), kToken);
}

TEST(SseRelay, SmallReadsOfEverySizeRelayTheSameBytes) {
  // Events spanning many reads: what was held back from one read goes out with a later one.
  const std::string stream = kRole + kToken + ": ping\r\n\r\n" + kToken + kFinish + kUsage + kDone;
  for (std::size_t step = 1; step <= 9; ++step) {
    for (const bool strip : {true, false}) {
      SseRelay relay(strip);
      std::string out;
      for (std::size_t at = 0; at < stream.size(); at += step) {
        relay.feed(std::string_view(stream).substr(at, step), static_cast<std::int64_t>(at));
        if (at + step >= stream.size()) {
          relay.finish(static_cast<std::int64_t>(at));
        }
        out += joined(relay.pieces());
      }
      const std::string expected = strip ? kRole + kToken + ": ping\r\n\r\n" + kToken + kFinish + kDone : stream;
      ASSERT_EQ(out, expected) << "reads of " << step << (strip ? ", stripped" : "");
      EXPECT_EQ(relay.text_events(), 2);
      ASSERT_TRUE(relay.usage());
    }
  }
}

TEST(SseRelay, ManyRemovedEventsInOneReadAreJoinedWithinThePieceLimit) {
  std::string stream;
  std::string expected;
  for (int i = 0; i < 2 * static_cast<int>(http::kMaxChunkPieces); ++i) {
    stream += kToken + kUsage;
    expected += kToken;
  }
  stream += kToken + "data: [DONE]";  // the last event's blank line comes from finish()
  expected += kToken + kDone;
  for (const std::size_t cut : {std::size_t{0}, kToken.size() + 5, stream.size() / 2, stream.size()}) {
    SseRelay relay(true);
    relay.feed(std::string_view(stream).substr(0, cut), 1);
    std::string out = joined(relay.pieces());
    EXPECT_LE(relay.pieces().size(), http::kMaxChunkPieces);
    relay.feed(std::string_view(stream).substr(cut), 2);
    relay.finish(2);
    EXPECT_LE(relay.pieces().size(), http::kMaxChunkPieces);
    out += joined(relay.pieces());
    EXPECT_EQ(out, expected) << "cut at " << cut;
  }
}

TEST(SseRelay, ALastEventWithoutItsBlankLineIsDeliveredWithOne) {
  const Relayed r = relay_split(kToken + "data: [DONE]", 3, true);
  EXPECT_EQ(r.out, kToken + kDone);
  const Relayed usage_last = relay_split(kToken + kUsage.substr(0, kUsage.size() - 1), 3, true);
  EXPECT_EQ(usage_last.out, kToken);
  ASSERT_TRUE(usage_last.relay.usage());
  EXPECT_EQ(usage_last.relay.usage()->prompt_tokens, 7);
}

TEST(SseRelay, EventsTheFastPathTurnsDownAreReadWhole) {
  // Each event's first data line is glanced as its end is found; an event that turns out to be
  // more than that line (a CRLF, an id, a second data line holding the usage) is read as a whole.
  const std::string two_lines =
      "data: {\"choices\":[{\"delta\":{\"content\":\" a\"}}],\n"
      "data: \"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}\n\n";
  const std::string with_id = "data: {\"choices\":[{\"delta\":{\"content\":\" b\"}}]}\nid: 9\n\n";
  const std::string crlf = "data: {\"choices\":[{\"delta\":{\"content\":\" c\"}}]}\r\n\r\n";
  const std::string role_then_text =
      "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\" d\"}}]}\n\n";
  const std::string stream = kToken + two_lines + with_id + crlf + role_then_text + kDone;
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    const Relayed r = relay_split(stream, cut, true);
    ASSERT_EQ(r.out, stream) << "cut at " << cut;
    EXPECT_EQ(r.relay.text_events(), 5) << "cut at " << cut;
    ASSERT_TRUE(r.relay.usage()) << "cut at " << cut;
    EXPECT_EQ(r.relay.usage()->completion_tokens, 4);
  }
}

TEST(SseRelay, AUsageChunkIsRemovedWithTheFieldsBeforeItAtEverySplit) {
  // A read may end after an event's first line: the lines held back belong to the event removed.
  const std::string stream = kToken + ": note\nid: 3\n" + kUsage + kDone;
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    const Relayed r = relay_split(stream, cut, true);
    ASSERT_EQ(r.out, kToken + kDone) << "cut at " << cut;
    ASSERT_TRUE(r.relay.usage()) << "cut at " << cut;
  }
}

TEST(SseRelay, AKeepAliveCommentBeforeTheUsageChunkGoesOutAtEverySplit) {
  // A block of comments ended by its own blank line is not part of the event after it, here one
  // with an id line that the parser reads line by line.
  for (const std::string keep_alive : {": keep-alive\n\n", ": keep-alive\r\n\r\n", ":\r\r"}) {
    const std::string stream = kToken + keep_alive + "id: 3\n" + kUsage + kDone;
    for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
      const Relayed r = relay_split(stream, cut, true);
      ASSERT_EQ(r.out, kToken + keep_alive + kDone) << "cut at " << cut;
      ASSERT_TRUE(r.relay.usage()) << "cut at " << cut;
    }
  }
}

// The Responses API's events, as OpenAI sends them: typed, the usage only in the last.
std::string response_event(std::string_view type, std::string_view members) {
  return "event: " + std::string(type) + "\ndata: {\"type\":\"" + std::string(type) + "\"" + std::string(members) +
         "}\n\n";
}

TEST(SseRelay, AResponsesStreamGoesThroughWholeWithItsDeltasTimedAndItsUsageRead) {
  const std::string delta = response_event("response.output_text.delta", R"(,"item_id":"msg_1","delta":" hi")");
  const std::string stream =
      response_event("response.created", R"(,"response":{"id":"resp_1","status":"in_progress","usage":null})") + delta +
      delta + response_event("response.output_text.done", R"(,"text":" hi hi")") +
      response_event("response.completed",
                     R"(,"response":{"id":"resp_1","status":"completed","output":[{"type":"message","content":[]}],)"
                     R"("usage":{"input_tokens":9,"input_tokens_details":{"cached_tokens":0},"output_tokens":2,)"
                     R"("output_tokens_details":{"reasoning_tokens":0},"total_tokens":11}})");
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    const Relayed r = relay_split(stream, cut, true, EventDialect::responses);
    ASSERT_EQ(r.out, stream) << "cut at " << cut;  // nothing to strip: the client gets its usage anyway
    ASSERT_TRUE(r.relay.usage()) << "cut at " << cut;
    EXPECT_EQ(r.relay.usage()->prompt_tokens, 9);
    EXPECT_EQ(r.relay.usage()->completion_tokens, 2);
    EXPECT_EQ(r.relay.text_events(), 2);
    const std::size_t second_delta_end = stream.find(delta) + 2 * delta.size();
    EXPECT_EQ(r.relay.first_token_ns(), cut >= stream.find(delta) + delta.size() ? 100 : 200) << "cut at " << cut;
    EXPECT_EQ(r.relay.last_token_ns(), cut >= second_delta_end ? 100 : 200) << "cut at " << cut;
  }
}

TEST(SseRelay, AResponsesStreamWithoutEventNamesIsReadByItsTypes) {
  const std::string stream =
      R"(data: {"type":"response.output_text.delta","delta":" hi"})"
      "\n\n"
      R"(data: {"type":"response.incomplete","response":{"usage":{"input_tokens":3,"output_tokens":1}}})"
      "\n\n";
  const Relayed r = relay_split(stream, stream.size(), false, EventDialect::responses);
  EXPECT_EQ(r.out, stream);
  EXPECT_EQ(r.relay.text_events(), 1);
  ASSERT_TRUE(r.relay.usage());
  EXPECT_EQ(r.relay.usage()->prompt_tokens, 3);
  EXPECT_EQ(r.relay.usage()->completion_tokens, 1);
}

}  // namespace
}  // namespace infergate::gateway
