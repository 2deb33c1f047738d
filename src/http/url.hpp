#pragma once
// Base URLs as users write them: http://host:port/v1, https://api.groq.com/openai/v1.
#include <cstdint>
#include <string>
#include <string_view>

namespace infergate::http {

struct Url {
  bool tls = false;
  std::string host;  // without brackets for IPv6 literals
  std::uint16_t port = 0;
  std::string path;  // no trailing slash; "" for the root

  // "host:port" as the Host header wants it (port omitted when it is the scheme's default).
  [[nodiscard]] std::string authority() const;
  [[nodiscard]] std::string to_string() const;
};

// Throws std::invalid_argument with a message naming the problem.
Url parse_url(std::string_view text);

}  // namespace infergate::http
