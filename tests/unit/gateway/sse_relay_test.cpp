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
Relayed relay_split(const std::string& stream, std::size_t cut, bool strip) {
  Relayed r{{}, SseRelay(strip)};
  std::string scratch;
  r.out.append(r.relay.feed(std::string_view(stream).substr(0, cut), 100, scratch));
  r.out.append(r.relay.feed(std::string_view(stream).substr(cut), 200, scratch));
  r.relay.finish(200, r.out);
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
  std::string scratch;
  const std::string first = kRole + kToken + kToken.substr(0, 10);
  const std::string_view out = relay.feed(first, 1, scratch);
  EXPECT_EQ(out, kRole + kToken);
  EXPECT_EQ(out.data(), first.data());  // a view of the read itself
  const std::string rest = kToken.substr(10) + kUsage + kDone;
  EXPECT_EQ(relay.feed(rest, 2, scratch), kToken + kDone);
  EXPECT_EQ(relay.text_events(), 2);
}

TEST(SseRelay, ALastEventWithoutItsBlankLineIsDeliveredWithOne) {
  const Relayed r = relay_split(kToken + "data: [DONE]", 3, true);
  EXPECT_EQ(r.out, kToken + kDone);
  const Relayed usage_last = relay_split(kToken + kUsage.substr(0, kUsage.size() - 1), 3, true);
  EXPECT_EQ(usage_last.out, kToken);
  ASSERT_TRUE(usage_last.relay.usage());
  EXPECT_EQ(usage_last.relay.usage()->prompt_tokens, 7);
}

}  // namespace
}  // namespace infergate::gateway
