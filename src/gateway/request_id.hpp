#pragma once
// X-Request-Id: the client's own when it is safe to echo, otherwise a fresh random one.
#include <string>
#include <string_view>

namespace infergate::gateway {

// Accepts 1-128 visible ASCII characters (no spaces, no control characters: no header injection).
bool acceptable_request_id(std::string_view id);

// 32 hex digits from a per-thread generator seeded from the OS.
std::string new_request_id();

}  // namespace infergate::gateway
