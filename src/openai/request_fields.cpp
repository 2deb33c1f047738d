#include "openai/request_fields.hpp"

#include <fmt/format.h>

#include <string>

#include "core/json_error.hpp"

namespace infergate::openai {

std::string_view kind_of(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
      return "an integer";
    case boost::json::kind::double_:
      return "a number";
    case boost::json::kind::string:
      return "a string";
    case boost::json::kind::array:
      return "an array";
    case boost::json::kind::object:
      return "an object";
  }
  return "a value";
}

ApiError wrong_type(std::string_view field, std::string_view expected, const boost::json::value& got) {
  return invalid_request(fmt::format("'{}' must be {}, got {}", field, expected, kind_of(got)), std::string(field));
}

std::optional<ApiError> parse_request_object(std::string_view body, boost::json::value& parsed, std::string& model) {
  std::string syntax_error;
  parsed = parse_json(body, syntax_error);
  if (!syntax_error.empty()) {
    return invalid_request("the request body is not valid JSON: " + syntax_error);
  }
  if (!parsed.is_object()) {
    return invalid_request(fmt::format("the request body must be a JSON object, got {}", kind_of(parsed)));
  }
  const auto* name = parsed.get_object().if_contains("model");
  if (name == nullptr) {
    return invalid_request("'model' is required", "model");
  }
  if (!name->is_string()) {
    return wrong_type("model", "a string", *name);
  }
  model = name->get_string();
  return std::nullopt;
}

}  // namespace infergate::openai
