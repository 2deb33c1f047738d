#pragma once
// %XX escapes in a URL's path segment or query value (RFC 3986 section 2.1).
#include <optional>
#include <string>
#include <string_view>

namespace infergate::http {

// `text` with each %XX replaced by its byte; nullopt when a '%' is not followed by two hex digits.
// '+' stays '+': it means a space only in HTML forms, and model names and ids hold none.
std::optional<std::string> percent_decode(std::string_view text);

}  // namespace infergate::http
