#pragma once
// GET /v1/models: {"object": "list", "data": [{"id", "object": "model", "created", "owned_by"}]}.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace infergate::openai {

std::string model_list_json(std::span<const std::string> ids, std::string_view owned_by);

// The model ids in a /v1/models body, in order; nullopt when the body is not a model list.
std::optional<std::vector<std::string>> parse_model_list(std::string_view body);

}  // namespace infergate::openai
