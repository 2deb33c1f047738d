#include "gateway/key_spend.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace infergate::gateway {
namespace {

TEST(KeySpendTest, EachPeriodReadsItsSumPlusTheUnsavedCost) {
  KeySpend spend;
  EXPECT_EQ(spend.in(BudgetPeriod::day), 0.0);
  spend.refresh(PeriodSums{1.0, 10.0, 100.0}, 0.0);
  spend.add_unsaved(0.5);
  EXPECT_EQ(spend.in(BudgetPeriod::day), 1.5);
  EXPECT_EQ(spend.in(BudgetPeriod::month), 10.5);
  EXPECT_EQ(spend.in(BudgetPeriod::total), 100.5);
  // A refresh whose sums now hold the half takes it out of the unsaved cost.
  spend.refresh(PeriodSums{1.5, 10.5, 100.5}, -0.5);
  EXPECT_EQ(spend.in(BudgetPeriod::day), 1.5);
  EXPECT_EQ(spend.in(BudgetPeriod::total), 100.5);
  spend.refresh(PeriodSums{}, 0.0);  // a new day, and every sum gone from the database
  EXPECT_EQ(spend.in(BudgetPeriod::total), 0.0);
}

// A writer moves cost between the sums and the unsaved part, keeping their total at 100, while a
// reader checks every read: a read that mixed one change's sums with another's unsaved cost would
// see 62.5 or 137.5.
TEST(KeySpendTest, AReaderNeverSeesHalfAChange) {
  KeySpend spend;
  spend.refresh(PeriodSums{100.0, 100.0, 100.0}, 0.0);
  std::atomic<bool> done{false};
  std::atomic<long> torn{0};
  std::atomic<long> reads{0};
  std::thread reader([&] {
    while (!done.load(std::memory_order_relaxed)) {
      for (const BudgetPeriod period : {BudgetPeriod::day, BudgetPeriod::month, BudgetPeriod::total}) {
        if (spend.in(period) != 100.0) {
          torn.fetch_add(1, std::memory_order_relaxed);
        }
      }
      reads.fetch_add(1, std::memory_order_relaxed);
    }
  });
  constexpr double kMoved = 37.5;
  for (int i = 0; i < 200'000 || reads.load(std::memory_order_relaxed) < 1000; ++i) {
    const double saved = 100.0 - kMoved;
    spend.refresh(PeriodSums{saved, saved, saved}, kMoved);
    spend.refresh(PeriodSums{100.0, 100.0, 100.0}, -kMoved);
  }
  done = true;
  reader.join();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(spend.in(BudgetPeriod::total), 100.0);
}

}  // namespace
}  // namespace infergate::gateway
