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

}  // namespace
}  // namespace infergate
