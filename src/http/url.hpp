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

// An OpenAI-compatible API's base URL as users write it: /v1 is appended unless the path ends
// with it (http://host:8000 and http://host:8000/v1 are one base; Groq's is .../openai/v1). An
// endpoint's URL pasted in its place (.../v1/chat/completions, as curl examples show it) is
// refused, naming the base to give: requests would go to .../chat/completions/v1/... and fail
// with a 404 that does not say why.
Url parse_api_base(std::string_view text);

}  // namespace infergate::http
