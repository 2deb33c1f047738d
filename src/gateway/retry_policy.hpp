#pragma once
// Whether to try again after a failed attempt, and after how long: one pure function, tested as a
// table. Attempts are only ever retried before the first byte reached the client.
#include <chrono>
#include <optional>

namespace infergate::gateway {

enum class AttemptOutcome {
  success,
  connect_failed,      // refused, unreachable, reset before a response
  first_byte_timeout,  // no response head in time
  rate_limited,        // 429
  server_error,        // 5xx
  client_error,        // other 4xx: the request itself is wrong, another deployment will agree
  out_of_resources,    // the gateway itself had no descriptor or memory for a connection: no
                       // upstream's fault, and no other deployment would fare better now
};

struct RetryPolicy {
  int max_attempts = 3;
  std::chrono::milliseconds base_backoff{25};
  std::chrono::milliseconds max_backoff{2000};
  std::chrono::milliseconds deadline{60000};  // from the request's arrival, for all attempts
};

struct RetryDecision {
  bool retry = false;
  std::chrono::milliseconds delay{0};
};

// Whether another attempt, on this deployment or another, could fare differently: not after a
// success, a request the upstream rejected as wrong, or the gateway's own want of resources.
bool worth_another_attempt(AttemptOutcome outcome);

// `attempts` made so far (>= 1); `jitter` in [0, 1) spreads the backoff over its upper half;
// `retry_after` is the upstream's Retry-After, honoured as a minimum delay.
RetryDecision decide_retry(const RetryPolicy& policy, AttemptOutcome outcome, int attempts,
                           std::chrono::milliseconds elapsed, std::optional<std::chrono::milliseconds> retry_after,
                           double jitter);

// Parses Retry-After given in seconds (HTTP-dates, infinities and NaN are treated as absent); a
// wait longer than kLongestAnnouncedWait (core/rate_limiter.hpp) counts as that.
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value);

}  // namespace infergate::gateway
