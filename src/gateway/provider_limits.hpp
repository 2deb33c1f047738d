#pragma once
// Reading a provider's own rate limits from its answers (Groq, OpenAI and the simulator send them):
// a 429, or x-ratelimit-remaining-requests / -tokens at 0, says how long the provider will refuse.
// The gateway sends that deployment nothing until then instead of collecting 429s.
#include <cstdint>
#include <optional>

#include "http/client.hpp"

namespace infergate::gateway {

// The CLOCK_MONOTONIC ns until which the deployment should rest, or nullopt when the answer says
// nothing is spent. A 429 without any hint rests one second.
std::optional<std::int64_t> provider_rest_until(const http::ResponseHead& head, std::int64_t now_ns);

}  // namespace infergate::gateway
