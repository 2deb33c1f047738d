#pragma once
// What the gateway counts for one key while it runs: its requests in flight and, with local
// rate-limit state, its RPM/TPM window per public model. The key cache hands the same state to
// every snapshot of the key it loads, so a refresh resets nothing, and a request reaches its
// counters through its key record instead of looking them up by name under a shared lock.
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/rate_limiter.hpp"
#include "core/text_hash.hpp"

namespace infergate::gateway {

class KeySpend;

class KeyState {
 public:
  std::atomic<std::int64_t> parallel{0};
  // The key's slot in the ledger (Ledger::slot), once a request of it needed one.
  std::atomic<KeySpend*> spend{nullptr};

  // Counts one request of `tokens` against `model`'s window when `limits` allow it; `window` is
  // set to the counters to reconcile with (they live as long as this state).
  Admission admit(std::string_view model, const RateLimits& limits, std::int64_t tokens, std::int64_t now_ms,
                  WindowCounters*& window);
  void reconcile(WindowCounters& window, const Reservation& reservation, std::int64_t actual_tokens,
                 std::int64_t now_ms);

 private:
  std::mutex mutex_;
  // A node map: the counters a ticket points at never move. Its models are the gateway's routed
  // ones (admission comes after routing), so it stays small.
  std::unordered_map<std::string, WindowCounters, TextHash, std::equal_to<>> models_;
  // The entry the last admission used: a key's requests mostly name the model of the one before,
  // and comparing its name costs a fraction of hashing it.
  std::pair<const std::string, WindowCounters>* last_ = nullptr;
};

}  // namespace infergate::gateway
