#pragma once
// What the simulator answers to POST /v1/embeddings: one vector per input, in OpenAI's shape,
// floats or base64 as asked, with the usage a pooling server reports (prompt tokens only).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "openai/embedding_request.hpp"

namespace infergate::sim {

// `dims` values drawn from the input's hash and scaled to unit length, as OpenAI's embeddings
// are: equal inputs get equal vectors, and a client can check norms and dot products.
[[nodiscard]] std::vector<float> embedding_vector(std::uint64_t hash, std::size_t dims);

// The whole response body; `json_model` is the model name as a JSON string literal.
[[nodiscard]] std::string embedding_response(const openai::EmbeddingRequest& request, std::string_view json_model,
                                             std::size_t dims, std::int64_t prompt_tokens);

}  // namespace infergate::sim
