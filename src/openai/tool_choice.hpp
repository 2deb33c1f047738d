#pragma once
// The tool call a request makes the model answer with: its `tool_choice` naming one of its
// `tools`, or "required" (the first function among them). A server that serves no model of its
// own (the simulator) answers such a request with a call of that function, and "auto" in text, as
// a model that chose not to call one.
#include <boost/json/object.hpp>

#include <optional>
#include <string>

#include "openai/api_error.hpp"

namespace infergate::openai {

struct ForcedToolCall {
  std::string name;
  // What the arguments fill in: the first property of the function's parameters' schema, or
  // "input" where it has none.
  std::string argument;
};

// Reads `tools` and `tool_choice` of a chat request, or of a Responses API request
// (`responses_shape`: a function's name is the tool's own, not under "function"). A wrong type,
// a tool_choice without tools, or one naming a function `tools` lacks is a 400 naming the field.
[[nodiscard]] std::optional<ApiError> read_forced_tool_call(const boost::json::object& body, bool responses_shape,
                                                            std::optional<ForcedToolCall>& out);

}  // namespace infergate::openai
