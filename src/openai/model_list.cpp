#include "openai/model_list.hpp"

#include <boost/json.hpp>

#include "core/utf8_text.hpp"
#include "http/percent_decode.hpp"

namespace infergate::openai {

namespace json = boost::json;

namespace {

json::object model_object(std::string_view id, std::string_view owned_by) {
  return json::object{{"id", id}, {"object", "model"}, {"created", 0}, {"owned_by", owned_by}};
}

}  // namespace

std::string model_list_json(std::span<const std::string> ids, std::string_view owned_by) {
  json::array data;
  for (const auto& id : ids) {
    data.push_back(model_object(id, owned_by));
  }
  return json::serialize(json::object{{"object", "list"}, {"data", std::move(data)}});
}

std::string model_json(std::string_view id, std::string_view owned_by) {
  return json::serialize(model_object(id, owned_by));
}

std::optional<std::string> model_in_path(std::string_view path) {
  constexpr std::string_view kPrefix = "/v1/models/";
  if (!path.starts_with(kPrefix) || path.size() == kPrefix.size()) {
    return std::nullopt;
  }
  const std::string_view written = path.substr(kPrefix.size());
  const std::optional<std::string> id = http::percent_decode(written);
  if (!id) {
    return std::string(written);
  }
  // Bytes that are no UTF-8 name no model, and an answer naming them must stay valid JSON.
  return valid_utf8(*id) == *id ? *id : std::string(written);
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
