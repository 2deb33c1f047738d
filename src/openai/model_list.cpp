#include "openai/model_list.hpp"

#include <boost/json.hpp>

namespace infergate::openai {

namespace json = boost::json;

std::string model_list_json(std::span<const std::string> ids, std::string_view owned_by) {
  json::array data;
  for (const auto& id : ids) {
    data.push_back(json::object{{"id", id}, {"object", "model"}, {"created", 0}, {"owned_by", owned_by}});
  }
  return json::serialize(json::object{{"object", "list"}, {"data", std::move(data)}});
}

std::optional<std::vector<std::string>> parse_model_list(std::string_view body) {
  boost::system::error_code ec;
  json::value parsed = json::parse(body, ec);
  if (ec || !parsed.is_object()) {
    return std::nullopt;
  }
  const auto* data = parsed.get_object().if_contains("data");
  if (data == nullptr || !data->is_array()) {
    // Ollama's native /api/tags uses "models"; accept it too.
    data = parsed.get_object().if_contains("models");
    if (data == nullptr || !data->is_array()) {
      return std::nullopt;
    }
  }
  std::vector<std::string> ids;
  for (const auto& entry : data->get_array()) {
    if (!entry.is_object()) {
      continue;
    }
    const auto& object = entry.get_object();
    const auto* id = object.if_contains("id");
    if (id == nullptr) {
      id = object.if_contains("name");
    }
    if (id != nullptr && id->is_string()) {
      ids.emplace_back(id->get_string());
    }
  }
  return ids;
}

}  // namespace infergate::openai
