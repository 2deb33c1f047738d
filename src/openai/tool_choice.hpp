#pragma once
// The tool call a request asks of the model: its `tool_choice` naming one of its `tools`, or
// "required" (the first function among them), must be answered with that call; "auto" (the
// default when tools are given) leaves the model free to call one or to answer in text. A server
// that serves no model of its own (the simulator) calls the first function when it chooses to.
#include <boost/json/object.hpp>

#include <optional>
#include <string>

#include "openai/api_error.hpp"

namespace infergate::openai {

struct ToolFunction {
  std::string name;
  // What the arguments fill in: the first property of the function's parameters' schema, or
  // "input" where it has none.
  std::string argument;
};

struct ToolChoice {
  std::optional<ToolFunction> forced;   // the call tool_choice demands
  std::optional<ToolFunction> offered;  // "auto": the first function, which the model may call
};

// Reads `tools` and `tool_choice` of a chat request, or of a Responses API request
// (`responses_shape`: a function's name is the tool's own, not under "function"). A wrong type,
// a tool_choice without tools, or one naming a function `tools` lacks is a 400 naming the field.
[[nodiscard]] std::optional<ApiError> read_tool_choice(const boost::json::object& body, bool responses_shape,
                                                       ToolChoice& out);

}  // namespace infergate::openai
