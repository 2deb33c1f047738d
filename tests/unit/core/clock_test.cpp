#include "core/clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

namespace infergate {
namespace {

using namespace std::chrono_literals;

TEST(Clock, CoarseStepIsATick) {
  EXPECT_GT(kCoarseStepNs, 0);
  EXPECT_LE(kCoarseStepNs, 100'000'000);  // no kernel ticks slower than 10 Hz
}

TEST(Clock, CoarseTrailsThePreciseClockByLessThanItsLargestLag) {
  for (int i = 0; i < 100'000; ++i) {
    const std::int64_t before = monotonic_ns();
    const std::int64_t coarse = coarse_monotonic_ns();
    const std::int64_t after = monotonic_ns();
    ASSERT_LE(coarse, after);
    ASSERT_GT(coarse + kCoarseLagNs, before);
  }
}

// An I/O limit from the coarse clock may end a few milliseconds late, never early.
TEST(Clock, CoarseDeadlineIsNeverBeforeThePreciseOne) {
  for (const auto timeout : {0ms, 1ms, 30'000ms}) {
    const std::int64_t before = monotonic_ns();
    const std::int64_t deadline = coarse_deadline_ns(timeout);
    const std::int64_t after = monotonic_ns();
    const std::int64_t timeout_ns = std::chrono::nanoseconds(timeout).count();
    EXPECT_GE(deadline, before + timeout_ns);
    EXPECT_LE(deadline, after + timeout_ns + kCoarseLagNs);
  }
}

std::int64_t system_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST(Clock, UnixTimeFromAMonotonicReadingMatchesTheWallClock) {
  for (int i = 0; i < 3; ++i) {
    const std::int64_t before = system_ms();
    const std::int64_t at = unix_ms_at(monotonic_ns());
    const std::int64_t after = system_ms();
    EXPECT_GE(at, before - 1);
    EXPECT_LE(at, after + 1);
    const std::int64_t now = unix_ms();
    EXPECT_GE(now, before - 1);
    EXPECT_LE(now, system_ms() + 1);
  }
  // A reading a second old is a second earlier.
  const std::int64_t now = monotonic_ns();
  EXPECT_NEAR(unix_ms_at(now) - unix_ms_at(now - 1'000'000'000), 1000, 1);
}

}  // namespace
}  // namespace infergate
