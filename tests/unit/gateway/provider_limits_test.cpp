#include "gateway/provider_limits.hpp"

#include <gtest/gtest.h>

namespace infergate::gateway {
namespace {

constexpr std::int64_t kNow = 1'000'000'000;
constexpr std::int64_t kMs = 1'000'000;

TEST(ProviderRest, NothingSpentMeansNoRest) {
  http::ResponseHead head;
  head.status = 200;
  head.add_header("x-ratelimit-remaining-requests", "14");
  head.add_header("x-ratelimit-reset-requests", "2s");
  EXPECT_FALSE(provider_rest_until(head, kNow));
}

TEST(ProviderRest, ASpentLimitRestsUntilTheLongerReset) {
  http::ResponseHead head;
  head.status = 200;
  head.add_header("X-RateLimit-Remaining-Requests", "0");
  head.add_header("X-RateLimit-Reset-Requests", "2s");
  head.add_header("x-ratelimit-remaining-tokens", "0");
  head.add_header("x-ratelimit-reset-tokens", "7.5s");
  EXPECT_EQ(provider_rest_until(head, kNow), kNow + 7'500 * kMs);
}

TEST(ProviderRest, A429WithoutHintsRestsOneSecondAndHonoursRetryAfter) {
  http::ResponseHead bare;
  bare.status = 429;
  EXPECT_EQ(provider_rest_until(bare, kNow), kNow + 1'000 * kMs);
  http::ResponseHead told;
  told.status = 429;
  told.add_header("Retry-After", "3");
  EXPECT_EQ(provider_rest_until(told, kNow), kNow + 3'000 * kMs);
}

TEST(ProviderRest, AnAbsurdResetRestsADayAndNoLonger) {
  http::ResponseHead head;
  head.status = 429;
  head.add_header("x-ratelimit-remaining-tokens", "0");
  head.add_header("x-ratelimit-reset-tokens", "1e300s");
  head.add_header("Retry-After", "1e308");
  EXPECT_EQ(provider_rest_until(head, kNow), kNow + std::int64_t{86'400'000} * kMs);
}

}  // namespace
}  // namespace infergate::gateway
