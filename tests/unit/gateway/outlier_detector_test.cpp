#include "gateway/outlier_detector.hpp"

#include <gtest/gtest.h>

namespace infergate::gateway {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;
const OutlierPolicy kPolicy{3, std::chrono::seconds(1), std::chrono::seconds(5)};

TEST(OutlierState, EjectsAfterConsecutiveFailuresOnly) {
  OutlierState s;
  EXPECT_FALSE(s.record(kPolicy, UpstreamResult::failure, 0));
  EXPECT_FALSE(s.record(kPolicy, UpstreamResult::failure, 0));
  EXPECT_FALSE(s.record(kPolicy, UpstreamResult::success, 0));  // the run is broken
  EXPECT_FALSE(s.record(kPolicy, UpstreamResult::failure, 0));
  EXPECT_FALSE(s.record(kPolicy, UpstreamResult::failure, 0));
  EXPECT_FALSE(s.ejected(0));
  EXPECT_TRUE(s.record(kPolicy, UpstreamResult::failure, 0));
  EXPECT_TRUE(s.ejected(0));
  EXPECT_TRUE(s.ejected(kSecond - 1));
  EXPECT_FALSE(s.ejected(kSecond));
}

TEST(OutlierState, RefusedConnectionEjectsAtOnce) {
  OutlierState s;
  EXPECT_TRUE(s.record(kPolicy, UpstreamResult::connect_refused, 0));
  EXPECT_TRUE(s.ejected(kSecond / 2));
}

TEST(OutlierState, CooldownDoublesWhileItKeepsFailingUpToTheCap) {
  OutlierState s;
  std::int64_t now = 0;
  const std::int64_t expected[] = {1, 2, 4, 5, 5};
  for (std::int64_t seconds : expected) {
    ASSERT_TRUE(s.record(kPolicy, UpstreamResult::connect_refused, now));
    EXPECT_TRUE(s.ejected(now + seconds * kSecond - 1));
    EXPECT_FALSE(s.ejected(now + seconds * kSecond));
    now += seconds * kSecond;  // cooldown over: the next probe fails again
  }
  EXPECT_EQ(s.ejections_in_a_row(), 5);
}

TEST(OutlierState, SuccessResetsTheCooldown) {
  OutlierState s;
  s.record(kPolicy, UpstreamResult::connect_refused, 0);
  s.record(kPolicy, UpstreamResult::connect_refused, kSecond);
  s.record(kPolicy, UpstreamResult::success, 3 * kSecond);
  ASSERT_TRUE(s.record(kPolicy, UpstreamResult::connect_refused, 3 * kSecond));
  EXPECT_FALSE(s.ejected(4 * kSecond));  // back to the base cooldown
}

TEST(OutlierState, FailuresWhileEjectedDoNotExtendIt) {
  OutlierState s;
  s.record(kPolicy, UpstreamResult::connect_refused, 0);
  EXPECT_FALSE(s.record(kPolicy, UpstreamResult::connect_refused, kSecond / 2));
  EXPECT_FALSE(s.ejected(kSecond));
}

}  // namespace
}  // namespace infergate::gateway
