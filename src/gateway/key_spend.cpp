#include "gateway/key_spend.hpp"

namespace infergate::gateway {

// The sequence lock's fences follow Boehm, "Can seqlocks get along with programming language
// memory models?" (2012): the data are atomics read and written relaxed, so a read that races a
// change is not undefined, only retried.
double KeySpend::in(BudgetPeriod period) const {
  const std::atomic<double>& sum = period == BudgetPeriod::day ? day_ : period == BudgetPeriod::month ? month_ : total_;
  for (;;) {
    const std::uint64_t before = sequence_.load(std::memory_order_acquire);
    const double spent = sum.load(std::memory_order_relaxed) + unsaved_.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if ((before & 1) == 0 && sequence_.load(std::memory_order_relaxed) == before) {
      return spent;
    }
  }
}

void KeySpend::begin_change() {
  sequence_.store(sequence_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
}

void KeySpend::end_change() {
  sequence_.store(sequence_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

void KeySpend::add_unsaved(double cost) {
  begin_change();
  unsaved_.store(unsaved_.load(std::memory_order_relaxed) + cost, std::memory_order_relaxed);
  end_change();
}

void KeySpend::refresh(const PeriodSums& sums, double unsaved) {
  begin_change();
  day_.store(sums.day, std::memory_order_relaxed);
  month_.store(sums.month, std::memory_order_relaxed);
  total_.store(sums.total, std::memory_order_relaxed);
  unsaved_.store(unsaved_.load(std::memory_order_relaxed) + unsaved, std::memory_order_relaxed);
  end_change();
}

}  // namespace infergate::gateway
