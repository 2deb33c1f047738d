#include "bench/timeline.hpp"

#include <gtest/gtest.h>

#include "bench/time_units.hpp"

namespace infergate::bench {
namespace {

// Ten text events 80 ms apart starting 100 ms after dispatch; the server counted 20 tokens.
RequestRecord dispatched(std::uint64_t index, std::int64_t dispatch_ms, std::int64_t end_ms) {
  RequestRecord r;
  r.index = index;
  r.due_ns = r.dispatch_ns = r.sent_ns = dispatch_ms * ms;
  r.first_token_ns = (dispatch_ms + 100) * ms;
  for (int k = 0; k < 10; ++k) {
    r.text_events.push_back({(dispatch_ms + 100 + 80 * k) * ms, 4});
  }
  r.last_byte_ns = end_ms * ms;
  r.usage = openai::Usage{50, 20};
  return r;
}

// Two closed-loop workers, three requests each.
std::vector<RequestRecord> two_workers() {
  return {dispatched(0, 0, 1000),    dispatched(1, 0, 1500),    dispatched(2, 1000, 2000),
          dispatched(3, 1500, 2500), dispatched(4, 2000, 3000), dispatched(5, 2500, 3500)};
}

TEST(SteadyState, ExcludesTheFirstWaveAndTheDrain) {
  const auto steady = steady_state(two_workers());
  ASSERT_TRUE(steady.has_value());
  EXPECT_DOUBLE_EQ(steady->level, 2);
  EXPECT_DOUBLE_EQ(steady->start_s, 1.0);  // the first request finished
  EXPECT_DOUBLE_EQ(steady->end_s, 3.0);    // in-flight fell to one
  EXPECT_DOUBLE_EQ(steady->mean_in_flight, 2.0);
  EXPECT_EQ(steady->summary.completed, 3u);  // requests 2, 3 and 4
  EXPECT_EQ(steady->ramp_up.requests, 2u);
  EXPECT_DOUBLE_EQ(steady->ramp_up.duration_s, 1.0);
  EXPECT_EQ(steady->drain.requests, 1u);
  EXPECT_DOUBLE_EQ(steady->drain.duration_s, 0.5);
  // Events inside [1 s, 3 s]: ten each from requests 2-4, six from request 5; two tokens each.
  EXPECT_DOUBLE_EQ(steady->summary.output_tokens_per_s, 36 * 2 / 2.0);
  EXPECT_DOUBLE_EQ(steady->summary.requests_per_s, 5 / 2.0);                  // finishes at 1, 1.5, 2, 2.5 and 3 s
  EXPECT_DOUBLE_EQ(steady->summary.total_tokens_per_s, 36.0 + 4 * 50 / 2.0);  // dispatched at 1, 1.5, 2, 2.5 s
}

TEST(SteadyState, AbsentWhenEveryRequestIsInTheFirstWave) {
  EXPECT_FALSE(steady_state({dispatched(0, 0, 1000), dispatched(1, 0, 1500)}).has_value());
  EXPECT_FALSE(steady_state({}).has_value());
}

TEST(SteadyState, OneStreamDropsOnlyItsFirstRequest) {
  std::vector<RequestRecord> records;
  for (int i = 0; i < 5; ++i) {
    records.push_back(dispatched(i, i * 1000, i * 1000 + 1000));
  }
  const auto steady = steady_state(records);
  ASSERT_TRUE(steady.has_value());
  EXPECT_DOUBLE_EQ(steady->level, 1);
  EXPECT_EQ(steady->ramp_up.requests, 1u);
  EXPECT_EQ(steady->summary.completed, 4u);
  EXPECT_EQ(steady->drain.requests, 0u);
  EXPECT_DOUBLE_EQ(steady->end_s, 5.0);
}

// Embeddings answer whole, with no text event: their TTFT (the whole answer's time) still counts
// in the phases and the series, and the steady input rate is the prompt tokens sent inside it.
TEST(SteadyState, AnswersWithoutTextEventsKeepTheirTtft) {
  std::vector<RequestRecord> records = two_workers();
  for (RequestRecord& r : records) {
    r.text_events.clear();
    r.first_token_ns = r.last_byte_ns;
    r.usage = openai::Usage{50, 0};
  }
  const auto steady = steady_state(records);
  ASSERT_TRUE(steady.has_value());
  EXPECT_EQ(steady->ramp_up.ttft_ms.count, 2u);
  EXPECT_DOUBLE_EQ(steady->ramp_up.ttft_ms.p50, 1250);  // answers at 1000 and 1500 ms
  EXPECT_EQ(steady->drain.ttft_ms.count, 1u);
  EXPECT_DOUBLE_EQ(steady->summary.output_tokens_per_s, 0);
  EXPECT_DOUBLE_EQ(steady->summary.total_tokens_per_s, 4 * 50 / 2.0);
  const TimeSeries series = time_series(records);
  ASSERT_TRUE(series.ttft_ms[1].has_value());
  EXPECT_DOUBLE_EQ(*series.ttft_ms[1], 1250);  // requests 0 and 1 answered in the second second
}

TEST(TimeSeries, PerSecondInFlightTokensAndCompletions) {
  const TimeSeries s = time_series(two_workers());
  ASSERT_EQ(s.t_s.size(), 4u);
  EXPECT_DOUBLE_EQ(s.t_s[3], 3.0);
  EXPECT_DOUBLE_EQ(s.in_flight[0], 2.0);
  EXPECT_DOUBLE_EQ(s.in_flight[2], 2.0);
  EXPECT_DOUBLE_EQ(s.in_flight[3], 0.5);
  EXPECT_EQ(s.started[0], 2u);
  EXPECT_EQ(s.started[1], 2u);
  EXPECT_EQ(s.completed[1], 2u);  // at 1.0 and 1.5 s
  EXPECT_EQ(s.completed[3], 2u);  // at 3.0 and 3.5 s
  EXPECT_EQ(s.failed[3], 0u);
  double tokens = 0;
  for (double t : s.output_tokens) {
    tokens += t;
  }
  EXPECT_DOUBLE_EQ(tokens, 6 * 20);
  // Prompts count when their request was sent: two at 0 s, two in [1, 2) s, two in [2, 3) s.
  EXPECT_EQ(s.input_tokens, (std::vector<double>{100, 100, 100, 0}));
  ASSERT_TRUE(s.ttft_ms[0].has_value());
  EXPECT_DOUBLE_EQ(*s.ttft_ms[0], 100);
}

}  // namespace
}  // namespace infergate::bench
