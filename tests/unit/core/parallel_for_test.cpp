#include "core/parallel_for.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace infergate {
namespace {

TEST(ParallelFor, RunsEveryIndexOnce) {
  for (std::size_t count : {0, 1, 2, 7, 1000}) {
    std::vector<std::atomic<int>> runs(count);
    parallel_for(count, [&](std::size_t i) { ++runs[i]; });
    for (std::size_t i = 0; i < count; ++i) {
      EXPECT_EQ(runs[i], 1) << i << " of " << count;
    }
  }
}

// Where the machine has more than one core, the work is spread over threads.
TEST(ParallelFor, SpreadsTheWorkOverThreads) {
  if (std::thread::hardware_concurrency() < 2) {
    GTEST_SKIP() << "one core";
  }
  std::atomic<int> inside{0};
  std::atomic<int> most{0};
  parallel_for(64, [&](std::size_t) {
    const int now = ++inside;
    for (int seen = most; now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    --inside;
  });
  EXPECT_GE(most, 2);
}

TEST(ParallelFor, RethrowsTheFirstFailureAfterTheOthersStop) {
  std::atomic<int> running{0};
  std::atomic<int> finished{0};
  try {
    parallel_for(100, [&](std::size_t i) {
      ++running;
      if (i == 3) {
        --running;
        throw std::runtime_error("row 3");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      --running;
      ++finished;
    });
    FAIL() << "expected the failure";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "row 3");
  }
  EXPECT_EQ(running, 0) << "returned while calls were still running";
  EXPECT_LT(finished, 99) << "kept taking indices after the failure";
}

}  // namespace
}  // namespace infergate
