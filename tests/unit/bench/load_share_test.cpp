#include <gtest/gtest.h>

#include "bench/runner.hpp"

namespace infergate::bench {
namespace {

// Senders of one closed loop split its streams and requests and send prompts of their own.
TEST(LoadShare, SendersSplitTheStreamsAndRequestsWithPromptsOfTheirOwn) {
  LoadOptions load;
  load.concurrency = 5;
  load.requests = 11;
  const LoadOptions a = load_share(load, 2, 0);
  const LoadOptions b = load_share(load, 2, 1);
  EXPECT_EQ(a.concurrency + b.concurrency, 5);
  EXPECT_EQ(a.requests + b.requests, 11u);
  EXPECT_NE(a.first_index, b.first_index);
  EXPECT_EQ(a.index_stride, 1u);
}

// A replayed trace is dealt out request by request: sender k sends requests k, k + n, ...
TEST(LoadShare, AReplayedTraceIsDealtOutRequestByRequest) {
  LoadOptions load;
  load.replay_speed = 2;
  load.requests = 7;
  for (int k = 0; k < 3; ++k) {
    const LoadOptions part = load_share(load, 3, k);
    EXPECT_EQ(part.first_index, static_cast<std::uint64_t>(k));
    EXPECT_EQ(part.index_stride, 3u);
    EXPECT_EQ(part.requests, k == 0 ? 3u : 2u);  // 0 3 6 | 1 4 | 2 5
    EXPECT_EQ(part.replay_speed, 2);
  }
}

}  // namespace
}  // namespace infergate::bench
