#include "openai/response_events.hpp"

#include <boost/json.hpp>

#include "core/json_error.hpp"
#include "openai/usage_object.hpp"

namespace infergate::openai {

namespace json = boost::json;

namespace {

bool is_end(std::string_view type) {
  return type == "response.completed" || type == "response.incomplete" || type == "response.failed";
}

bool is_generated(std::string_view type) {
  return type.starts_with("response.") && type.ends_with(".delta");
}

std::optional<Usage> usage_of(const json::value& event) {
  const json::object* object = event.if_object();
  const json::value* response = object != nullptr ? object->if_contains("response") : nullptr;
  if (response == nullptr || !response->is_object()) {
    return std::nullopt;
  }
  const json::value* usage = response->get_object().if_contains("usage");
  if (usage == nullptr || !usage->is_object()) {
    return std::nullopt;
  }
  return parse_usage(json::serialize(*usage), false);
}

}  // namespace

ResponseEvent read_response_event(std::string_view name, std::string_view data) {
  if (!name.empty() && !is_end(name)) {
    return {is_generated(name), std::nullopt};
  }
  std::string syntax_error;
  const json::value parsed = parse_json(data, syntax_error);
  if (!syntax_error.empty()) {
    return {};
  }
  std::string_view type = name;
  if (type.empty()) {
    const json::object* object = parsed.if_object();
    const json::value* field = object != nullptr ? object->if_contains("type") : nullptr;
    if (field == nullptr || !field->is_string()) {
      return {};
    }
    type = field->get_string();
  }
  if (is_end(type)) {
    return {false, usage_of(parsed)};
  }
  return {is_generated(type), std::nullopt};
}

}  // namespace infergate::openai
