#include "gateway/key_state.hpp"

#include "core/byte_vector.hpp"

namespace infergate::gateway {

Admission KeyState::admit(std::string_view model, const RateLimits& limits, std::int64_t tokens, std::int64_t now_ms,
                          WindowCounters*& window) {
  const std::lock_guard lock(mutex_);
  if (last_ == nullptr || !same_bytes(last_->first, model)) {
    auto it = models_.find(model);
    if (it == models_.end()) {
      it = models_.emplace(std::string(model), WindowCounters{}).first;
    }
    last_ = &*it;
  }
  window = &last_->second;
  return window->admit(limits, tokens, now_ms);
}

void KeyState::reconcile(WindowCounters& window, const Reservation& reservation, std::int64_t actual_tokens,
                         std::int64_t now_ms) {
  const std::lock_guard lock(mutex_);
  window.reconcile(reservation, actual_tokens, now_ms);
}

}  // namespace infergate::gateway
