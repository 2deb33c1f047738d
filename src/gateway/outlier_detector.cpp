#include "gateway/outlier_detector.hpp"

#include <algorithm>

namespace infergate::gateway {

bool OutlierState::record(const OutlierPolicy& policy, UpstreamResult result, std::int64_t now_ns) {
  if (result == UpstreamResult::success) {
    failures_.store(0, std::memory_order_relaxed);
    ejections_.store(0, std::memory_order_relaxed);
    return false;
  }
  const int failures = failures_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (result != UpstreamResult::connect_refused && failures < policy.consecutive_failures) {
    return false;
  }
  if (ejected(now_ns)) {
    return false;  // already out: attempts that were in flight do not extend the cooldown
  }
  const int ejections = ejections_.fetch_add(1, std::memory_order_relaxed) + 1;
  const auto base = std::chrono::duration_cast<std::chrono::nanoseconds>(policy.base_ejection).count();
  const auto cap = std::chrono::duration_cast<std::chrono::nanoseconds>(policy.max_ejection).count();
  const std::int64_t cooldown = std::min<std::int64_t>(cap, base << std::min(ejections - 1, 20));
  ejected_until_ns_.store(now_ns + cooldown, std::memory_order_relaxed);
  failures_.store(0, std::memory_order_relaxed);
  return true;
}

}  // namespace infergate::gateway
