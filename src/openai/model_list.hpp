#pragma once
// GET /v1/models: {"object": "list", "data": [{"id", "object": "model", "created", "owned_by"}]},
// and GET /v1/models/{id}: one such object.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace infergate::openai {

std::string model_list_json(std::span<const std::string> ids, std::string_view owned_by);
std::string model_json(std::string_view id, std::string_view owned_by);

// The model id a /v1/models/{id} path asks for, percent-decoded: SDKs encode the id as a path
// segment, and ids such as "meta-llama/Llama-3.1-8B" hold slashes, sent as %2F or bare. Nullopt
// when `path` (without its query) is not such a path; a malformed escape is kept as written.
std::optional<std::string> model_in_path(std::string_view path);

// The model ids in a /v1/models body, in order; nullopt when the body is not a model list.
std::optional<std::vector<std::string>> parse_model_list(std::string_view body);

}  // namespace infergate::openai
