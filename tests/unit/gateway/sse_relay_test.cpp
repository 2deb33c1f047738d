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
  r.relay.feed(std::string_view(stream).substr(0, cut), 100, r.out);
  r.relay.feed(std::string_view(stream).substr(cut), 200, r.out);
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

TEST(SseRelay, CrLfCommentsAndNamedEventsAreNormalised) {
  const Relayed r =
      relay_split(": keep-alive\r\n\r\nevent: error\r\ndata: {\"error\":{\"message\":\"x\"}}\r\n\r\n", 5, true);
  EXPECT_EQ(r.out, "event: error\ndata: {\"error\":{\"message\":\"x\"}}\n\n");
}

}  // namespace
}  // namespace infergate::gateway
