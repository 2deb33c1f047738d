#pragma once
// What a gateway reads from a client's request before forwarding it: the model to route on and
// the streaming options. Only these fields are type-checked here; the upstream judges the rest.
#include <optional>
#include <string>
#include <string_view>

#include "openai/api_error.hpp"

namespace infergate::openai {

struct RequestView {
  std::string model;
  bool stream = false;
  bool has_stream_options = false;
  bool include_usage = false;
  std::optional<std::int64_t> max_tokens;  // max_completion_tokens wins over max_tokens
  // Characters of prompt text / 4 (+4 per message), or the count of token ids: what rate limits
  // reserve before the upstream reports the real count.
  std::int64_t prompt_tokens_estimate = 0;
};

std::optional<ApiError> parse_request_view(std::string_view body, RequestView& out);

// The body with "stream_options":{"include_usage":true} spliced in after the opening brace, bytes
// otherwise untouched. Only for a JSON object body without stream_options.
std::string with_usage_requested(std::string_view body);

// The body with the value of its top-level "model" replaced by `model`, every other byte as it
// was (no re-serialisation). nullopt when the body has no top-level string "model".
std::optional<std::string> with_model(std::string_view body, std::string_view model);

}  // namespace infergate::openai
