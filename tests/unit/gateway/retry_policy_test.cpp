#include "gateway/retry_policy.hpp"

#include <gtest/gtest.h>

#include "core/rate_limiter.hpp"

namespace infergate::gateway {
namespace {

using std::chrono::milliseconds;

struct Row {
  const char* name;
  AttemptOutcome outcome;
  int attempts;
  int elapsed_ms;
  std::optional<int> retry_after_ms;
  double jitter;
  bool retry;
  int delay_ms;
};

// Policy: 3 attempts, backoff 100 ms doubling, capped at 300 ms, 1 s deadline. The jitter spreads
// the delay over the upper half of the backoff: delay = backoff x (0.5 + 0.5 x jitter).
const RetryPolicy kPolicy{3, milliseconds(100), milliseconds(300), milliseconds(1000)};

class RetryDecisionTable : public ::testing::TestWithParam<Row> {};

TEST_P(RetryDecisionTable, Decides) {
  const Row& row = GetParam();
  std::optional<milliseconds> retry_after;
  if (row.retry_after_ms) {
    retry_after = milliseconds(*row.retry_after_ms);
  }
  const RetryDecision d =
      decide_retry(kPolicy, row.outcome, row.attempts, milliseconds(row.elapsed_ms), retry_after, row.jitter);
  EXPECT_EQ(d.retry, row.retry) << row.name;
  if (row.retry) {
    EXPECT_EQ(d.delay.count(), row.delay_ms) << row.name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, RetryDecisionTable,
    ::testing::Values(
        Row{"success is final", AttemptOutcome::success, 1, 0, {}, 0, false, 0},
        Row{"a 4xx is the request's fault", AttemptOutcome::client_error, 1, 0, {}, 0, false, 0},
        Row{"the gateway out of descriptors", AttemptOutcome::out_of_resources, 1, 0, {}, 0, false, 0},
        Row{"connect failure retries at half the base", AttemptOutcome::connect_failed, 1, 0, {}, 0, true, 50},
        Row{"full jitter end of the first backoff", AttemptOutcome::connect_failed, 1, 0, {}, 0.999, true, 99},
        Row{"second attempt doubles", AttemptOutcome::server_error, 2, 0, {}, 1.0, true, 200},
        Row{"timeout before the first byte retries", AttemptOutcome::first_byte_timeout, 1, 0, {}, 0, true, 50},
        Row{"attempts exhausted", AttemptOutcome::server_error, 3, 0, {}, 0, false, 0},
        Row{"429 honours a longer Retry-After", AttemptOutcome::rate_limited, 1, 0, 400, 0, true, 400},
        Row{"Retry-After shorter than the backoff", AttemptOutcome::rate_limited, 1, 0, 10, 0, true, 50},
        Row{"Retry-After past the deadline gives up", AttemptOutcome::rate_limited, 1, 0, 1500, 0, false, 0},
        Row{"backoff past the deadline gives up", AttemptOutcome::server_error, 2, 950, {}, 0, false, 0}),
    [](const auto& info) {
      std::string name = info.param.name;
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) {
          c = '_';
        }
      }
      return name;
    });

TEST(RetryPolicy, AnotherAttemptOnlyAfterWhatAnotherTryCouldChange) {
  EXPECT_FALSE(worth_another_attempt(AttemptOutcome::success));
  EXPECT_FALSE(worth_another_attempt(AttemptOutcome::client_error));
  EXPECT_FALSE(worth_another_attempt(AttemptOutcome::out_of_resources));
  EXPECT_TRUE(worth_another_attempt(AttemptOutcome::connect_failed));
  EXPECT_TRUE(worth_another_attempt(AttemptOutcome::first_byte_timeout));
  EXPECT_TRUE(worth_another_attempt(AttemptOutcome::rate_limited));
  EXPECT_TRUE(worth_another_attempt(AttemptOutcome::server_error));
}

TEST(RetryPolicy, BackoffIsCapped) {
  const RetryPolicy policy{10, milliseconds(100), milliseconds(300), milliseconds(100000)};
  EXPECT_EQ(decide_retry(policy, AttemptOutcome::server_error, 6, milliseconds(0), {}, 1.0).delay.count(), 300);
}

TEST(RetryPolicy, RetryAfterInSeconds) {
  EXPECT_EQ(parse_retry_after("2"), milliseconds(2000));
  EXPECT_EQ(parse_retry_after("0.5"), milliseconds(500));
  EXPECT_FALSE(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"));
  EXPECT_FALSE(parse_retry_after(""));
  EXPECT_FALSE(parse_retry_after("-1"));
  // Figures no clock can hold: not-a-number refused, an absurd wait taken as a day.
  EXPECT_FALSE(parse_retry_after("nan"));
  EXPECT_FALSE(parse_retry_after("inf"));
  EXPECT_EQ(parse_retry_after("1e308"), milliseconds(kLongestAnnouncedWait));
  EXPECT_EQ(parse_retry_after("86400"), milliseconds(kLongestAnnouncedWait));
}

}  // namespace
}  // namespace infergate::gateway
