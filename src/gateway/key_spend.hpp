#pragma once
// What one key has spent, as its budget check reads it on every request: the ledger's sums per
// budget period as of its last refresh, and this process's cost that those sums lack yet. The
// ledger changes a slot only under its own lock, one change at a time; readers take no lock. A
// sequence count, odd while a change is under way, tells a reader to read again, so a reader never
// sees a refresh's sums without the unsaved cost it took out of them, nor the reverse.
#include <atomic>
#include <cstdint>

#include "gateway/key_record.hpp"

namespace infergate::gateway {

struct PeriodSums {
  double day = 0;
  double month = 0;
  double total = 0;
};

class KeySpend {
 public:
  // What the key spent in `period`: the sums plus the unsaved cost, read together.
  [[nodiscard]] double in(BudgetPeriod period) const;

  // The writer's side: the caller serialises every change (the ledger's lock).
  // Adds `cost` to what the sums lack (negative: cost the sums now hold).
  void add_unsaved(double cost);
  // Replaces the sums and adds `unsaved` to the unsaved cost, as one change.
  void refresh(const PeriodSums& sums, double unsaved);

 private:
  void begin_change();
  void end_change();

  std::atomic<std::uint64_t> sequence_{0};
  std::atomic<double> day_{0};
  std::atomic<double> month_{0};
  std::atomic<double> total_{0};
  std::atomic<double> unsaved_{0};
};

}  // namespace infergate::gateway
