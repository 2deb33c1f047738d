#include "bench/request_metrics.hpp"

#include <gtest/gtest.h>

#include "bench/time_units.hpp"

namespace infergate::bench {
namespace {

RequestRecord record_with(std::vector<TextEvent> events, std::optional<std::int64_t> usage_tokens) {
  RequestRecord r;
  r.due_ns = 1000 * ms;
  r.text_events = std::move(events);
  r.first_token_ns = r.text_events.front().ns;
  r.last_byte_ns = r.text_events.back().ns + 1 * ms;  // usage chunk and [DONE] follow the last token
  if (usage_tokens) {
    r.usage = openai::Usage{10, *usage_tokens};
  }
  return r;
}

// Due at 1000 ms; tokens at 1100, 1120, 1150, 1160 ms; last byte at 1161 ms.
// TTFT 100; E2E 161; TPOT (161 - 100) / 3 = 20.333; ITL 20, 30, 10.
TEST(RequestMetrics, OneTokenPerEventByHand) {
  std::vector<double> itl;
  const auto m = measure_request(record_with({{1100 * ms, 4}, {1120 * ms, 5}, {1150 * ms, 3}, {1160 * ms, 6}}, 4), itl);
  EXPECT_DOUBLE_EQ(m.ttft_ms, 100);
  EXPECT_DOUBLE_EQ(m.e2e_ms, 161);
  ASSERT_TRUE(m.tpot_ms);
  EXPECT_NEAR(*m.tpot_ms, 61.0 / 3, 1e-12);
  EXPECT_EQ(m.output_tokens, 4);
  EXPECT_TRUE(m.tokens_from_usage);
  EXPECT_EQ(itl, (std::vector<double>{20, 30, 10}));
}

// Three events carrying 2, 4 and 2 tokens (usage says 8; text lengths 10, 20, 10 bytes):
// the 40 ms gap before the second event becomes four 10 ms ITLs, the 20 ms gap two 10 ms ones.
TEST(RequestMetrics, MultiTokenEventsShareTheirGap) {
  std::vector<double> itl;
  const auto m = measure_request(record_with({{1100 * ms, 10}, {1140 * ms, 20}, {1160 * ms, 10}}, 8), itl);
  EXPECT_EQ(m.output_tokens, 8);
  EXPECT_NEAR(*m.tpot_ms, 61.0 / 7, 1e-12);
  EXPECT_EQ(itl, (std::vector<double>{10, 10, 10, 10, 10, 10}));
}

// A server streaming three tokens per event (text lengths differ, counts do not).
TEST(RequestMetrics, FixedTokensPerEventSplitEachGapEvenly) {
  std::vector<double> itl;
  measure_request(record_with({{1100 * ms, 9}, {1130 * ms, 20}, {1160 * ms, 12}}, 9), itl);
  EXPECT_EQ(itl, (std::vector<double>{10, 10, 10, 10, 10, 10}));
}

TEST(RequestMetrics, WithoutUsageTokensAreCountedFromEvents) {
  std::vector<double> itl;
  const auto m = measure_request(record_with({{1100 * ms, 3}, {1110 * ms, 3}}, std::nullopt), itl);
  EXPECT_FALSE(m.tokens_from_usage);
  EXPECT_EQ(m.output_tokens, 2);
  EXPECT_EQ(itl, (std::vector<double>{10}));
}

TEST(RequestMetrics, OneTokenHasNoTpot) {
  std::vector<double> itl;
  const auto m = measure_request(record_with({{1100 * ms, 3}}, 1), itl);
  EXPECT_FALSE(m.tpot_ms);
  EXPECT_TRUE(itl.empty());
}

}  // namespace
}  // namespace infergate::bench
