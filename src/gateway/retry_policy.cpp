#include "gateway/retry_policy.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include "core/rate_limiter.hpp"

namespace infergate::gateway {

bool worth_another_attempt(AttemptOutcome outcome) {
  return outcome != AttemptOutcome::success && outcome != AttemptOutcome::client_error &&
         outcome != AttemptOutcome::out_of_resources;
}

RetryDecision decide_retry(const RetryPolicy& policy, AttemptOutcome outcome, int attempts,
                           std::chrono::milliseconds elapsed, std::optional<std::chrono::milliseconds> retry_after,
                           double jitter) {
  if (!worth_another_attempt(outcome)) {
    return {};
  }
  if (attempts >= policy.max_attempts) {
    return {};
  }
  const double exponential = static_cast<double>(policy.base_backoff.count()) * std::pow(2.0, attempts - 1);
  const double capped = std::min(exponential, static_cast<double>(policy.max_backoff.count()));
  auto delay = std::chrono::milliseconds(static_cast<std::int64_t>(capped * (0.5 + 0.5 * jitter)));
  if (retry_after) {
    delay = std::max(delay, *retry_after);
  }
  if (elapsed + delay >= policy.deadline) {
    return {};
  }
  return {true, delay};
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value) {
  double seconds = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec != std::errc{} || end != value.data() + value.size() || !std::isfinite(seconds) || seconds < 0) {
    return std::nullopt;
  }
  const auto longest = static_cast<double>(std::chrono::milliseconds(kLongestAnnouncedWait).count());
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::min(seconds * 1000, longest)));
}

}  // namespace infergate::gateway
