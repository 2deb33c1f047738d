#include "core/rate_limiter.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace infergate {
namespace {

constexpr std::int64_t kMinute = 60'000;
const std::string kBucket = "key\x1fmodel";

TEST(RateLimiter, AdmitsRpmRequestsPerWindowThenRefusesUntilItEnds) {
  LocalRateLimits limits;
  const RateLimits rpm3{3, std::nullopt};
  const std::int64_t t0 = 10 * kMinute + 15'000;  // 15 s into a window
  for (int i = 0; i < 3; ++i) {
    const Admission a = limits.admit(kBucket, rpm3, 10, t0 + i);
    ASSERT_TRUE(a.allowed) << i;
    EXPECT_EQ(a.requests->remaining, 2 - i);
    EXPECT_FALSE(a.tokens);
  }
  const Admission refused = limits.admit(kBucket, rpm3, 10, t0 + 10);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.limited_by, "requests");
  EXPECT_EQ(refused.retry_after.count(), 45'000 - 10);
  EXPECT_EQ(refused.requests->remaining, 0);
  // A new window starts afresh; another bucket never shared the count.
  EXPECT_TRUE(limits.admit(kBucket, rpm3, 10, 11 * kMinute).allowed);
  EXPECT_TRUE(limits.admit("other", rpm3, 10, t0).allowed);
}

TEST(RateLimiter, TokensAreReservedThenReconciledWithRealUse) {
  LocalRateLimits limits;
  const RateLimits tpm{std::nullopt, 1000};
  const std::int64_t t0 = 5 * kMinute;
  const Admission a = limits.admit(kBucket, tpm, 600, t0);
  ASSERT_TRUE(a.allowed);
  EXPECT_EQ(a.tokens->remaining, 400);
  EXPECT_FALSE(limits.admit(kBucket, tpm, 600, t0 + 1).allowed);  // 1,200 would pass the limit
  limits.reconcile(a.reservation, 150, t0 + 2);                   // it used 150, not 600
  const Admission b = limits.admit(kBucket, tpm, 600, t0 + 3);
  ASSERT_TRUE(b.allowed);
  EXPECT_EQ(b.tokens->remaining, 1000 - 150 - 600);
  // Used more than reserved: the excess counts too.
  limits.reconcile(b.reservation, 800, t0 + 4);
  const Admission c = limits.admit(kBucket, tpm, 60, t0 + 5);
  EXPECT_FALSE(c.allowed);
  EXPECT_EQ(c.tokens->remaining, 50);
}

TEST(RateLimiter, ExcessUseReportedAfterItsWindowEndedCountsInTheCurrentOne) {
  LocalRateLimits limits;
  const RateLimits tpm{std::nullopt, 1000};
  const Admission a = limits.admit(kBucket, tpm, 100, 59'000);
  limits.reconcile(a.reservation, 700, 61'000);  // a long stream ends in the next window
  const Admission b = limits.admit(kBucket, tpm, 401, 62'000);
  EXPECT_FALSE(b.allowed);
  EXPECT_EQ(b.tokens->remaining, 400);
  limits.reconcile(a.reservation, 50, 63'000);  // used less: no refund to a window that ended
  EXPECT_FALSE(limits.admit(kBucket, tpm, 401, 64'000).allowed);
  EXPECT_TRUE(limits.admit(kBucket, tpm, 400, 65'000).allowed);
}

TEST(RateLimiter, ARequestLargerThanTheWholeTpmIsTooLarge) {
  LocalRateLimits limits;
  const Admission a = limits.admit(kBucket, RateLimits{std::nullopt, 100}, 500, 0);
  EXPECT_FALSE(a.allowed);
  EXPECT_TRUE(a.too_large);
  EXPECT_EQ(a.limited_by, "tokens");
}

TEST(RateLimiter, RefusedRequestsCountNothing) {
  LocalRateLimits limits;
  const RateLimits both{2, 100};
  EXPECT_TRUE(limits.admit(kBucket, both, 90, 0).allowed);
  EXPECT_FALSE(limits.admit(kBucket, both, 20, 1).allowed);  // tokens
  const Admission a = limits.admit(kBucket, both, 10, 2);
  ASSERT_TRUE(a.allowed);  // the refused one did not take the second request
  EXPECT_EQ(a.requests->remaining, 0);
}

TEST(RateLimiter, HeadersInOpenAiShape) {
  Admission a = decide_admission(RateLimits{60, 1000}, 10, 200, 50, 30'000);
  const auto headers = rate_limit_headers(a);
  ASSERT_EQ(headers.size(), 6u);
  EXPECT_EQ(headers[0], (std::pair<std::string_view, std::string>{"x-ratelimit-limit-requests", "60"}));
  EXPECT_EQ(headers[1], (std::pair<std::string_view, std::string>{"x-ratelimit-remaining-requests", "49"}));
  EXPECT_EQ(headers[2], (std::pair<std::string_view, std::string>{"x-ratelimit-reset-requests", "30s"}));
  EXPECT_EQ(headers[4], (std::pair<std::string_view, std::string>{"x-ratelimit-remaining-tokens", "750"}));
  EXPECT_EQ(headers[5], (std::pair<std::string_view, std::string>{"x-ratelimit-reset-tokens", "30s"}));
}

TEST(RateLimiter, HeadersOfLimitsThatResetApartShowEachReset) {
  const RateLimitHeaders headers(Quota{60, 1, std::chrono::milliseconds(1'500)},
                                 Quota{1000, 10, std::chrono::milliseconds(61'000)});
  ASSERT_EQ(headers.fields().size(), 6u);
  EXPECT_EQ(headers.fields()[2].second, "1.5s");
  EXPECT_EQ(headers.fields()[5].second, "1m1s");
}

TEST(RateLimiter, HeadersOfOneLimitAndTheLongestValuesFitTheirStorage) {
  const std::int64_t most = std::numeric_limits<std::int64_t>::max();
  const RateLimitHeaders headers(std::nullopt, Quota{most, most, std::chrono::milliseconds(most)});
  ASSERT_EQ(headers.fields().size(), 3u);
  EXPECT_EQ(headers.fields()[0].first, "x-ratelimit-limit-tokens");
  EXPECT_EQ(headers.fields()[1].second, std::to_string(most));
  EXPECT_EQ(headers.fields()[2].second, format_reset(std::chrono::milliseconds(most)));
  EXPECT_EQ(headers.fields()[2].second, "153722867280912m55.807s");
  EXPECT_TRUE(RateLimitHeaders(std::nullopt, std::nullopt).fields().empty());
}

TEST(RateLimiter, HeadersOfKeysWithDifferentLimitsInTurnEachShowTheirOwn) {
  // A thread keeps the lines around the remaining counts as it wrote them last: every change of
  // a limit, back and forth, and every width must show, in each field.
  const std::vector<std::int64_t> limits = {60, 60, 1'000'000, 7, 60, 0, 0, 123'456'789'012, 60};
  for (std::size_t i = 0; i < limits.size(); ++i) {
    const std::int64_t tokens = limits[limits.size() - 1 - i];
    const RateLimitHeaders headers(Quota{limits[i], 1, std::chrono::milliseconds(5)},
                                   Quota{tokens, 2, std::chrono::milliseconds(5)});
    EXPECT_EQ(headers.lines(), "x-ratelimit-limit-requests: " + std::to_string(limits[i]) +
                                   "\r\nx-ratelimit-remaining-requests: 1\r\nx-ratelimit-reset-requests: 5ms\r\n"
                                   "x-ratelimit-limit-tokens: " +
                                   std::to_string(tokens) +
                                   "\r\nx-ratelimit-remaining-tokens: 2\r\nx-ratelimit-reset-tokens: 5ms\r\n")
        << i;
    EXPECT_EQ(headers.fields()[0].second, std::to_string(limits[i]));
    EXPECT_EQ(headers.fields()[3].second, std::to_string(tokens));
  }
}

TEST(RateLimiter, HeadersFollowEachChangeOfResetCountsAndLimitsThatApply) {
  // Every pair in turn on one thread: the kept lines must never show what the pair before had.
  const auto lines = [](const std::optional<Quota>& requests, const std::optional<Quota>& tokens) {
    std::string text;
    for (const auto& [limit, quota] : {std::pair{"requests", requests}, std::pair{"tokens", tokens}}) {
      if (quota) {
        text += std::string("x-ratelimit-limit-") + limit + ": " + std::to_string(quota->limit) + "\r\n";
        text += std::string("x-ratelimit-remaining-") + limit + ": " + std::to_string(quota->remaining) + "\r\n";
        text += std::string("x-ratelimit-reset-") + limit + ": " + format_reset(quota->reset) + "\r\n";
      }
    }
    return text;
  };
  const std::vector<std::pair<std::optional<Quota>, std::optional<Quota>>> turns = {
      {Quota{60, 59, std::chrono::milliseconds(30'000)}, Quota{1000, 900, std::chrono::milliseconds(30'000)}},
      {Quota{60, 58, std::chrono::milliseconds(30'000)}, Quota{1000, 9, std::chrono::milliseconds(30'000)}},
      {Quota{60, 57, std::chrono::milliseconds(29'996)}, Quota{1000, 123'456, std::chrono::milliseconds(29'996)}},
      {Quota{60, 56, std::chrono::milliseconds(29'996)}, Quota{1000, 0, std::chrono::milliseconds(61'000)}},
      {std::nullopt, Quota{1000, 5, std::chrono::milliseconds(61'000)}},
      {Quota{60, 5, std::chrono::milliseconds(61'000)}, std::nullopt},
      {std::nullopt, std::nullopt},
      {Quota{60, 55, std::chrono::milliseconds(7)}, std::nullopt},
      {Quota{60, 55, std::chrono::milliseconds(7)}, Quota{1000, 1, std::chrono::milliseconds(7)}},
      {Quota{60, 54, std::chrono::milliseconds(7)}, Quota{1000, 2, std::chrono::milliseconds(7)}},
  };
  for (std::size_t i = 0; i < turns.size(); ++i) {
    const RateLimitHeaders headers(turns[i].first, turns[i].second);
    EXPECT_EQ(headers.lines(), lines(turns[i].first, turns[i].second)) << i;
    EXPECT_EQ(headers.fields().size(), (turns[i].first ? 3u : 0u) + (turns[i].second ? 3u : 0u)) << i;
  }
}

// The fields as a head's lines, which the gateway copies into its responses whole.
TEST(RateLimiter, HeadersAsLinesOfAHead) {
  const RateLimitHeaders both(Quota{60, 49, std::chrono::milliseconds(30'000)},
                              Quota{1000, 750, std::chrono::milliseconds(30'000)});
  EXPECT_EQ(both.lines(),
            "x-ratelimit-limit-requests: 60\r\nx-ratelimit-remaining-requests: 49\r\n"
            "x-ratelimit-reset-requests: 30s\r\nx-ratelimit-limit-tokens: 1000\r\n"
            "x-ratelimit-remaining-tokens: 750\r\nx-ratelimit-reset-tokens: 30s\r\n");
  const RateLimitHeaders apart(Quota{60, 0, std::chrono::milliseconds(59'999)},
                               Quota{1000, 0, std::chrono::milliseconds(7)});
  EXPECT_EQ(apart.lines(),
            "x-ratelimit-limit-requests: 60\r\nx-ratelimit-remaining-requests: 0\r\n"
            "x-ratelimit-reset-requests: 59.999s\r\nx-ratelimit-limit-tokens: 1000\r\n"
            "x-ratelimit-remaining-tokens: 0\r\nx-ratelimit-reset-tokens: 7ms\r\n");
  // Every value at its widest, the reset copied from the first limit's: each line whole.
  const std::int64_t most = std::numeric_limits<std::int64_t>::max();
  const Quota widest{std::numeric_limits<std::int64_t>::min(), most, std::chrono::milliseconds(most)};
  const RateLimitHeaders wide(widest, widest);
  std::string expected;
  for (const char* limit : {"requests", "tokens"}) {
    expected += std::string("x-ratelimit-limit-") + limit + ": " + std::to_string(widest.limit) + "\r\n";
    expected += std::string("x-ratelimit-remaining-") + limit + ": " + std::to_string(most) + "\r\n";
    expected += std::string("x-ratelimit-reset-") + limit + ": 153722867280912m55.807s\r\n";
  }
  EXPECT_EQ(wide.lines(), expected);
  // The fields view the same text, and their names outlive the headers.
  std::string_view name;
  {
    const RateLimitHeaders gone(std::nullopt, widest);
    EXPECT_EQ(gone.fields()[2].second.data() + gone.fields()[2].second.size() + 2,
              gone.lines().data() + gone.lines().size());
    name = gone.fields()[0].first;
  }
  EXPECT_EQ(name, "x-ratelimit-limit-tokens");
  EXPECT_TRUE(RateLimitHeaders(std::nullopt, std::nullopt).lines().empty());
}

TEST(RateLimiter, ResetDurationsReadLikeOpenAis) {
  EXPECT_EQ(format_reset(std::chrono::milliseconds(20)), "20ms");
  EXPECT_EQ(format_reset(std::chrono::milliseconds(1500)), "1.5s");
  EXPECT_EQ(format_reset(std::chrono::milliseconds(360'000)), "6m0s");
  EXPECT_EQ(format_reset(std::chrono::milliseconds(-5)), "0ms");
  EXPECT_EQ(format_reset(std::chrono::milliseconds(47'620)), "47.62s");
  EXPECT_EQ(format_reset(std::chrono::milliseconds(1'005)), "1.005s");
  EXPECT_EQ(format_reset(std::chrono::milliseconds(179'560)), "2m59.56s");
  EXPECT_EQ(format_reset(std::chrono::milliseconds(0)), "0ms");
  EXPECT_EQ(format_reset(std::chrono::milliseconds(999)), "999ms");
  EXPECT_EQ(format_reset(std::chrono::milliseconds(1'000)), "1s");
  EXPECT_EQ(format_reset(std::chrono::milliseconds(10'000)), "10s");
  EXPECT_EQ(format_reset(std::chrono::milliseconds(59'999)), "59.999s");
  EXPECT_EQ(format_reset(std::chrono::milliseconds(60'000)), "1m0s");
  EXPECT_EQ(format_reset(std::chrono::milliseconds(6'000'100)), "100m0.1s");
  for (std::int64_t ms = 0; ms < 200'000; ms += 7) {
    ASSERT_EQ(parse_reset(format_reset(std::chrono::milliseconds(ms))), std::chrono::milliseconds(ms)) << ms;
  }
}

TEST(RateLimiter, ReadsResetDurationsAsServersWriteThem) {
  EXPECT_EQ(parse_reset("2m59.56s"), std::chrono::milliseconds(179'560));
  EXPECT_EQ(parse_reset("7.66s"), std::chrono::milliseconds(7'660));
  EXPECT_EQ(parse_reset("20ms"), std::chrono::milliseconds(20));
  EXPECT_EQ(parse_reset("1h0m1s"), std::chrono::milliseconds(3'601'000));
  EXPECT_EQ(parse_reset("3"), std::chrono::milliseconds(3'000));
  EXPECT_EQ(parse_reset(format_reset(std::chrono::milliseconds(125'250))), std::chrono::milliseconds(125'250));
  EXPECT_FALSE(parse_reset(""));
  EXPECT_FALSE(parse_reset("soon"));
  EXPECT_FALSE(parse_reset("5d"));
  // Figures no clock can hold: not-a-number refused, an absurd wait taken as a day.
  EXPECT_FALSE(parse_reset("nan"));
  EXPECT_FALSE(parse_reset("inf"));
  EXPECT_FALSE(parse_reset("1sinfs"));
  EXPECT_EQ(parse_reset("1e300s"), std::chrono::milliseconds(kLongestAnnouncedWait));
  EXPECT_EQ(parse_reset("1e308h1e308h"), std::chrono::milliseconds(kLongestAnnouncedWait));
  EXPECT_EQ(parse_reset("23h59m"), std::chrono::minutes(23 * 60 + 59));
}

}  // namespace
}  // namespace infergate
