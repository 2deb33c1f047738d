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
  bool include_usage = false;
  // max_completion_tokens wins over max_tokens; the Responses API's max_output_tokens stands alone.
  std::optional<std::int64_t> max_tokens;
  // Characters of prompt text (and instructions) / 4 (+4 per message), or the count of token ids: what rate limits
  // reserve before the upstream reports the real count.
  std::int64_t prompt_tokens_estimate = 0;
  // Top-level members named "model": more than one only in a body that repeats the name (the last
  // one is routed on), which a proxy renaming the model must then rename in each.
  int model_members = 0;
  // Top-level members named "stream_options", whatever their value (null included): where there
  // is one, asking for the usage edits it instead of adding another.
  int stream_options_members = 0;
};

std::optional<ApiError> parse_request_view(std::string_view body, RequestView& out);

}  // namespace infergate::openai
