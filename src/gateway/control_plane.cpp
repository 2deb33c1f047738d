#include "gateway/control_plane.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <limits>

#include "core/clock.hpp"

namespace infergate::gateway {

namespace {

std::int64_t now_unix() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

[[gnu::cold]] openai::ApiError unauthorized(std::string message) {
  return openai::ApiError{401, "invalid_request_error", std::move(message), std::nullopt,
                          std::string("invalid_api_key")};
}

std::string retry_after_seconds(std::chrono::milliseconds wait) {
  return std::to_string(std::max<std::int64_t>(1, (wait.count() + 999) / 1000));
}

// The refusals of admit() and conclude(), built out of line and marked cold: those two run for
// every request, and their code stays a few cache lines instead of carrying every message's.
[[gnu::cold]] Refusal model_not_allowed(const KeyRecord& key, std::string_view model) {
  return Refusal{openai::ApiError{403, "permission_error",
                                  fmt::format("This key may not use the model '{}'; it may use: {}", model,
                                              fmt::join(key.settings.models, ", ")),
                                  std::string("model"), std::string("model_not_allowed")},
                 {}};
}

[[gnu::cold]] Refusal over_budget(const KeyRecord& key, double spent) {
  const char* period = key.settings.budget_period == BudgetPeriod::day     ? "today"
                       : key.settings.budget_period == BudgetPeriod::month ? "this month"
                                                                           : "in total";
  return Refusal{openai::ApiError{429, "insufficient_quota",
                                  fmt::format("You exceeded your current quota: this key spent ${:.4f} {}, its "
                                              "budget is ${:.4f}",
                                              spent, period, *key.settings.budget_usd),
                                  std::nullopt, std::string("insufficient_quota")},
                 {}};
}

[[gnu::cold]] Refusal too_many_parallel(std::int64_t most) {
  return Refusal{openai::ApiError{429, "requests",
                                  fmt::format("Too many parallel requests for this key: at most {} at once", most),
                                  std::nullopt, std::string("parallel_limit_exceeded")},
                 {{"Retry-After", "1"}}};
}

[[gnu::cold]] Refusal rate_limited(const RateLimits& limits, const Admission& a, std::string_view model,
                                   std::int64_t tokens) {
  HeaderList headers = rate_limit_headers(a);
  std::string message;
  if (a.too_large) {
    message = fmt::format(
        "Request too large for model '{}': it needs about {} tokens, more than this key's {} "
        "tokens per minute; lower max_tokens or shorten the prompt",
        model, tokens, *limits.tpm);
  } else {
    headers.emplace_back("Retry-After", retry_after_seconds(a.retry_after));
    message = fmt::format("Rate limit reached for {} on model '{}': limit {} per minute. Please try again in {}.",
                          a.limited_by, model, a.limited_by == "requests" ? *limits.rpm : *limits.tpm,
                          format_reset(a.retry_after));
  }
  return Refusal{openai::ApiError{429, std::string(a.limited_by), std::move(message), std::nullopt,
                                  std::string("rate_limit_exceeded")},
                 std::move(headers)};
}

}  // namespace

ControlPlane::ControlPlane(const AuthConfig& config)
    : config_(config),
      shared_state_(config.state != "local"),
      master_hash_(hash_key(config.master_key)),
      store_(config.keys_db),
      ledger_(config.keys_db, config.ledger_journal, config.ledger_flush),
      cache_(store_, config.refresh, [this] { ledger_.refresh_spend(); }) {}

bool ControlPlane::is_master(std::string_view authorization) const {
  constexpr std::string_view kBearer = "Bearer ";
  if (!authorization.starts_with(kBearer)) {
    return false;
  }
  return same_hash(hash_key(authorization.substr(kBearer.size())), master_hash_);
}

std::variant<std::shared_ptr<const KeyRecord>, Refusal> ControlPlane::authenticate(
    std::string_view authorization) const {
  AuthResult auth = cache_.authenticate(authorization, now_unix());
  switch (auth.status) {
    case AuthStatus::ok:
      return std::move(auth.key);
    case AuthStatus::missing:
      return Refusal{unauthorized("Missing API key: send 'Authorization: Bearer <key>' with a key from your "
                                  "gateway administrator"),
                     {}};
    case AuthStatus::malformed:
    case AuthStatus::unknown:
      return Refusal{unauthorized("Incorrect API key provided"), {}};
    case AuthStatus::revoked:
      return Refusal{unauthorized("This API key has been revoked"), {}};
    case AuthStatus::expired:
      return Refusal{unauthorized("This API key has expired"), {}};
  }
  return Refusal{unauthorized("Incorrect API key provided"), {}};
}

std::variant<Ticket, Refusal> ControlPlane::admit(std::shared_ptr<const KeyRecord> key_record, std::string_view model,
                                                  std::int64_t tokens) {
  const KeyRecord& key = *key_record;
  if (!key.allows(model)) {
    return model_not_allowed(key, model);
  }
  if (key.settings.budget_usd) {
    const double spent = spend_of(key).in(key.settings.budget_period);
    if (spent >= *key.settings.budget_usd) {
      return over_budget(key, spent);
    }
  }
  Ticket ticket;
  ticket.key_ = std::move(key_record);
  if (key.settings.max_parallel) {
    std::atomic<std::int64_t>& parallel = key.state->parallel;
    if (parallel.fetch_add(1, std::memory_order_relaxed) >= *key.settings.max_parallel) {
      parallel.fetch_sub(1, std::memory_order_relaxed);
      return too_many_parallel(*key.settings.max_parallel);
    }
    ticket.parallel_.reset(&parallel);
  }
  const RateLimits limits = limits_of(key);
  if (shared_state() || (!limits.rpm && !limits.tpm)) {
    return ticket;
  }
  auto refusal =
      conclude(ticket, key.state->admit(model, limits, tokens, coarse_unix_ms(), ticket.window_), model, tokens);
  if (refusal) {
    return std::move(*refusal);
  }
  return ticket;
}

KeySpend& ControlPlane::spend_of(const KeyRecord& key) {
  if (key.state == nullptr) {
    return ledger_.slot(key.id);
  }
  if (KeySpend* spend = key.state->spend.load(std::memory_order_acquire)) {
    return *spend;
  }
  KeySpend& spend = ledger_.slot(key.id);
  key.state->spend.store(&spend, std::memory_order_release);
  return spend;
}

std::string ControlPlane::bucket(const KeyRecord& key, std::string_view model) {
  return key.id + '\x1f' + std::string(model);
}

std::optional<Refusal> ControlPlane::conclude(Ticket& ticket, Admission a, std::string_view model,
                                              std::int64_t tokens) {
  if (a.allowed) {
    ticket.requests_ = a.requests;
    ticket.tokens_ = a.tokens;
    ticket.reservation_ = std::move(a.reservation);
    return std::nullopt;
  }
  return rate_limited(limits_of(ticket.key()), a, model, tokens);
}

Refusal ControlPlane::state_unavailable() {
  return Refusal{openai::ApiError{503, "server_error",
                                  "The gateway cannot reach its rate-limit state and is configured to refuse until it "
                                  "can; try again shortly",
                                  std::nullopt, std::string("rate_limit_state_unavailable")},
                 {{"Retry-After", "1"}}};
}

std::int64_t ControlPlane::reservation(std::int64_t prompt_estimate, std::optional<std::int64_t> max_tokens) {
  const std::int64_t asked = std::max<std::int64_t>(0, max_tokens.value_or(0));
  return prompt_estimate + std::min(asked, std::numeric_limits<std::int64_t>::max() - prompt_estimate);
}

void ControlPlane::settle(const Ticket& ticket, std::int64_t actual_tokens) {
  if (ticket.window_ != nullptr) {
    ticket.key().state->reconcile(*ticket.window_, ticket.reservation_, actual_tokens, coarse_unix_ms());
  }
}

}  // namespace infergate::gateway
