#pragma once
// Where an OpenAI-compatible API lives: its base URL, and the paths under it.
#include <array>
#include <optional>
#include <string_view>

#include "http/url.hpp"

namespace infergate::openai {

// The OpenAI API's paths under its base URL (…/v1), those a client's base URL must not end with.
inline constexpr std::array<std::string_view, 5> kApiPaths{"/chat/completions", "/completions", "/embeddings",
                                                           "/models", "/responses"};

// The API path `path` ends with; nullopt when none.
[[nodiscard]] std::optional<std::string_view> api_path_at_end(std::string_view path);

// An OpenAI-compatible API's base URL as users write it: /v1 is appended unless the path ends
// with it (http://host:8000 and http://host:8000/v1 are one base; Groq's is .../openai/v1). An
// endpoint's URL pasted in its place (.../v1/chat/completions, as curl examples show it) is
// refused with std::invalid_argument naming the base to give: requests would go to
// .../chat/completions/v1/... and fail with a 404 that does not say why.
http::Url parse_api_base(std::string_view text);

}  // namespace infergate::openai
