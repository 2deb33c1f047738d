#include "gateway/provider_limits.hpp"

#include <algorithm>

#include "core/rate_limiter.hpp"
#include "gateway/retry_policy.hpp"

namespace infergate::gateway {

std::optional<std::int64_t> provider_rest_until(const http::ResponseHead& head, std::int64_t now_ns) {
  std::optional<std::chrono::milliseconds> rest;
  auto longer = [&rest](std::optional<std::chrono::milliseconds> candidate) {
    if (candidate && (!rest || *candidate > *rest)) {
      rest = candidate;
    }
  };
  if (head.header("x-ratelimit-remaining-requests") == "0") {
    longer(parse_reset(head.header("x-ratelimit-reset-requests")));
  }
  if (head.header("x-ratelimit-remaining-tokens") == "0") {
    longer(parse_reset(head.header("x-ratelimit-reset-tokens")));
  }
  if (head.status == 429) {
    longer(parse_retry_after(head.header("retry-after")));
    if (!rest) {
      rest = std::chrono::seconds(1);
    }
  }
  if (!rest) {
    return std::nullopt;
  }
  return now_ns + std::chrono::duration_cast<std::chrono::nanoseconds>(*rest).count();
}

}  // namespace infergate::gateway
