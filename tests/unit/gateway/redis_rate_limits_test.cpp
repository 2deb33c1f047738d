#include "gateway/redis_rate_limits.hpp"

#include <gtest/gtest.h>

namespace infergate::gateway {
namespace {

using Limits = RedisRateLimits;

TEST(LeaseSize, CoversTheSpanAtThePaceOfTheLastLease) {
  // 64 requests in 2 ms: 32 per millisecond, so 3,200 in the span.
  EXPECT_EQ(Limits::lease_size(64, 2), 32 * Limits::kLeaseSpanMs);
  // A lease of 3,200 used in 160 ms: 20 per millisecond.
  EXPECT_EQ(Limits::lease_size(3200, 160), 20 * Limits::kLeaseSpanMs);
}

TEST(LeaseSize, NeverAsksForLessThanTheFixedLease) {
  // One request a second: a lease of the span alone would send almost every request to Redis.
  EXPECT_EQ(Limits::lease_size(1, 1000), Limits::kLeaseRequests);
  EXPECT_EQ(Limits::lease_size(0, 5), Limits::kLeaseRequests);
}

TEST(LeaseSize, IsBoundedAboveAndSurvivesAClockThatDidNotMove) {
  EXPECT_EQ(Limits::lease_size(1000000, 1), Limits::kMostLeaseRequests);
  // Two asks in the same millisecond (or a wall clock stepped back): the pace is taken per
  // millisecond instead of dividing by zero or a negative time.
  EXPECT_EQ(Limits::lease_size(64, 0), 64 * Limits::kLeaseSpanMs);
  EXPECT_EQ(Limits::lease_size(64, -30), 64 * Limits::kLeaseSpanMs);
}

}  // namespace
}  // namespace infergate::gateway
