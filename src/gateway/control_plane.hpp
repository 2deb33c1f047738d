#pragma once
// The gateway's control plane for one process: virtual keys (store, cache), per-key parallel
// limits, and RPM/TPM limits per key and model. The proxy asks it to admit each request before
// routing and settles the request's real token use when it ends.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/rate_limiter.hpp"
#include "gateway/config.hpp"
#include "gateway/key_cache.hpp"
#include "gateway/key_state.hpp"
#include "gateway/key_store.hpp"
#include "gateway/ledger.hpp"
#include "openai/api_error.hpp"

namespace infergate::gateway {

// An admitted request: holds its key's parallel slot until destroyed, its token reservation, and
// the limits its response reports.
class Ticket {
 public:
  [[nodiscard]] const KeyRecord& key() const { return *key_; }
  // Whether the key has RPM/TPM limits, which its response reports (x-ratelimit-* headers).
  [[nodiscard]] bool limited() const { return requests_ || tokens_; }
  [[nodiscard]] const std::optional<Quota>& requests() const { return requests_; }  // as admission left them
  [[nodiscard]] const std::optional<Quota>& tokens() const { return tokens_; }
  [[nodiscard]] const Reservation& reservation() const { return reservation_; }

 private:
  friend class ControlPlane;
  struct ReleaseSlot {
    void operator()(std::atomic<std::int64_t>* parallel) const { parallel->fetch_sub(1, std::memory_order_relaxed); }
  };
  // Declared first, so destroyed last: the slot and window below live in the key's state.
  std::shared_ptr<const KeyRecord> key_;
  std::unique_ptr<std::atomic<std::int64_t>, ReleaseSlot> parallel_;
  WindowCounters* window_ = nullptr;  // local state: the counters holding the reservation
  Reservation reservation_;
  std::optional<Quota> requests_;
  std::optional<Quota> tokens_;
};

struct Refusal {
  openai::ApiError error;
  HeaderList headers;  // Retry-After and x-ratelimit-* where they apply
};

class ControlPlane {
 public:
  // Opens the key database and loads the keys; throws std::runtime_error when it cannot.
  explicit ControlPlane(const AuthConfig& config);

  // The key named by the request's Authorization header, or why there is none (401).
  std::variant<std::shared_ptr<const KeyRecord>, Refusal> authenticate(std::string_view authorization) const;

  // Whether `key` may send this request now: the model (403), its budget (429
  // insufficient_quota), parallel requests and RPM/TPM (429). `tokens` is the request's reservation: prompt estimate +
  // max_tokens.
  std::variant<Ticket, Refusal> admit(std::shared_ptr<const KeyRecord> key, std::string_view model,
                                      std::int64_t tokens);

  // The tokens a request reserves until its real use is known: the prompt estimate and max_tokens.
  // A negative max_tokens (some servers read it as "no limit") adds none, so that no request can
  // lower its key's count; a huge one saturates instead of overflowing.
  static std::int64_t reservation(std::int64_t prompt_estimate, std::optional<std::int64_t> max_tokens);

  // Charges the tokens the request really used (prompt + completion) in place of its reservation
  // (local state; with shared state the proxy reconciles in Redis).
  static void settle(const Ticket& ticket, std::int64_t actual_tokens);

  // Shared state (auth.state: redis://): admit() leaves the RPM/TPM check to the caller, which
  // asks Redis and hands the answer to conclude().
  [[nodiscard]] bool shared_state() const { return shared_state_; }
  [[nodiscard]] const AuthConfig& config() const { return config_; }
  static RateLimits limits_of(const KeyRecord& key) { return RateLimits{key.settings.rpm, key.settings.tpm}; }
  static std::string bucket(const KeyRecord& key, std::string_view model);
  // Applies a rate-limit decision to an admitted ticket: its headers and reservation, or the 429.
  std::optional<Refusal> conclude(Ticket& ticket, Admission admission, std::string_view model, std::int64_t tokens);
  // The 503 of a gateway that fails closed while its rate-limit state is unreachable.
  static Refusal state_unavailable();

  // Whether `authorization` is "Bearer <master key>" (compared in constant time).
  [[nodiscard]] bool is_master(std::string_view authorization) const;

  // Queues the request's ledger row (its cost counts against the key's budget at once); `key` is
  // the row's.
  void record(const LedgerRow& row, const KeyRecord& key) { ledger_.append(row, &spend_of(key)); }

  KeyStore& store() { return store_; }
  KeyCache& cache() { return cache_; }
  Ledger& ledger() { return ledger_; }

 private:
  // The key's slot in the ledger, looked up once per key and kept in its state.
  KeySpend& spend_of(const KeyRecord& key);

  AuthConfig config_;
  bool shared_state_;
  KeyHash master_hash_;
  KeyStore store_;
  Ledger ledger_;
  KeyCache cache_;
};

}  // namespace infergate::gateway
