#include "openai/tool_choice.hpp"

#include <fmt/format.h>

#include <vector>

#include "openai/request_fields.hpp"

namespace infergate::openai {

namespace json = boost::json;

namespace {

// The functions of `tools`, each as its name and first argument. Tools of other types (the
// Responses API's hosted tools, such as web_search) are no function to call.
std::optional<ApiError> read_functions(const json::value& tools, bool responses_shape, std::vector<ToolFunction>& out) {
  if (!tools.is_array()) {
    return wrong_type("tools", "an array of tool objects", tools);
  }
  std::size_t index = 0;
  for (const auto& tool : tools.get_array()) {
    const std::string field = fmt::format("tools[{}]", index++);
    if (!tool.is_object()) {
      return wrong_type(field, "an object", tool);
    }
    const auto& object = tool.get_object();
    const auto* type = object.if_contains("type");
    if (type == nullptr || !type->is_string()) {
      return invalid_request(fmt::format("'{}.type' is required, a string such as \"function\"", field),
                             field + ".type");
    }
    if (type->get_string() != "function") {
      continue;
    }
    const json::object* function = &object;
    std::string function_field = field;
    if (!responses_shape) {
      const auto* inner = object.if_contains("function");
      if (inner == nullptr || !inner->is_object()) {
        return inner == nullptr ? invalid_request(fmt::format("'{}.function' is required", field), field + ".function")
                                : wrong_type(field + ".function", "an object", *inner);
      }
      function = &inner->get_object();
      function_field += ".function";
    }
    const auto* name = function->if_contains("name");
    if (name == nullptr || !name->is_string() || name->get_string().empty()) {
      return invalid_request(fmt::format("'{}.name' is required, a non-empty string", function_field),
                             function_field + ".name");
    }
    ToolFunction call{std::string(name->get_string()), "input"};
    if (const auto* parameters = function->if_contains("parameters"); parameters && parameters->is_object()) {
      const auto* properties = parameters->get_object().if_contains("properties");
      if (properties != nullptr && properties->is_object() && !properties->get_object().empty()) {
        call.argument = std::string(properties->get_object().begin()->key());
      }
    }
    out.push_back(std::move(call));
  }
  return std::nullopt;
}

// The name tool_choice gives: {"type":"function","function":{"name":...}} in a chat request,
// {"type":"function","name":...} in a Responses API one.
std::optional<ApiError> chosen_name(const json::object& choice, bool responses_shape, std::string& name) {
  const auto* type = choice.if_contains("type");
  if (type == nullptr || !type->is_string() || type->get_string() != "function") {
    return invalid_request("'tool_choice.type' must be \"function\" (the only tool this server calls)",
                           "tool_choice.type");
  }
  const json::value* value = nullptr;
  if (responses_shape) {
    value = choice.if_contains("name");
  } else if (const auto* function = choice.if_contains("function"); function && function->is_object()) {
    value = function->get_object().if_contains("name");
  }
  const char* field = responses_shape ? "tool_choice.name" : "tool_choice.function.name";
  if (value == nullptr || !value->is_string()) {
    return invalid_request(fmt::format("'{}' is required, a string naming one of 'tools'", field), field);
  }
  name = value->get_string();
  return std::nullopt;
}

}  // namespace

std::optional<ApiError> read_tool_choice(const json::object& body, bool responses_shape, ToolChoice& out) {
  out = ToolChoice{};
  const auto* tools = body.if_contains("tools");
  const auto* choice = body.if_contains("tool_choice");
  const bool has_tools = tools != nullptr && !tools->is_null();
  const bool has_choice = choice != nullptr && !choice->is_null();
  std::vector<ToolFunction> functions;
  if (has_tools) {
    if (auto error = read_functions(*tools, responses_shape, functions)) {
      return error;
    }
  }
  const auto offer_first = [&]() -> std::optional<ApiError> {
    if (!functions.empty()) {
      out.offered = std::move(functions.front());
    }
    return std::nullopt;
  };
  if (!has_choice) {
    return offer_first();
  }
  if (!has_tools) {
    return invalid_request("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
                           "tool_choice");
  }
  if (choice->is_string()) {
    const json::string& mode = choice->get_string();
    if (mode == "none") {
      return std::nullopt;
    }
    if (mode == "auto") {
      return offer_first();
    }
    if (mode != "required") {
      return invalid_request(
          fmt::format("Invalid value for 'tool_choice': '{}'; it is \"none\", \"auto\", \"required\" or an object "
                      "naming a function",
                      std::string_view(mode)),
          "tool_choice");
    }
    if (functions.empty()) {
      return invalid_request("'tool_choice' is \"required\" but 'tools' holds no function to call", "tool_choice");
    }
    out.forced = std::move(functions.front());
    return std::nullopt;
  }
  if (!choice->is_object()) {
    return wrong_type("tool_choice", "a string or an object", *choice);
  }
  std::string name;
  if (auto error = chosen_name(choice->get_object(), responses_shape, name)) {
    return error;
  }
  for (auto& function : functions) {
    if (function.name == name) {
      out.forced = std::move(function);
      return std::nullopt;
    }
  }
  return invalid_request(fmt::format("Invalid value for 'tool_choice': function '{}' is not among 'tools'", name),
                         "tool_choice");
}

}  // namespace infergate::openai
