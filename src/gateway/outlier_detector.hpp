#pragma once
// Outlier ejection (Envoy's circuit breaking by outcome): a deployment that fails `consecutive`
// times in a row, or refuses a connection, is ejected for a cooldown that doubles with every
// ejection in a row (up to a cap) and resets after a success. Pure logic on explicit times, safe
// to call from every thread (the state is a few atomics per deployment).
#include <atomic>
#include <chrono>
#include <cstdint>

namespace infergate::gateway {

struct OutlierPolicy {
  int consecutive_failures = 5;
  std::chrono::milliseconds base_ejection{1'000};
  std::chrono::milliseconds max_ejection{60'000};
};

enum class UpstreamResult {
  success,
  connect_refused,  // nobody listens: eject at once
  failure,          // timeout, reset, 5xx
};

class OutlierState {
 public:
  // Records the outcome of an attempt finished at `now_ns`; true when it ejected the deployment.
  bool record(const OutlierPolicy& policy, UpstreamResult result, std::int64_t now_ns);

  [[nodiscard]] bool ejected(std::int64_t now_ns) const {
    return now_ns < ejected_until_ns_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] int ejections_in_a_row() const { return ejections_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int> failures_{0};
  std::atomic<int> ejections_{0};
  std::atomic<std::int64_t> ejected_until_ns_{0};
};

}  // namespace infergate::gateway
