#pragma once
// Server-side view of POST /v1/embeddings: the inputs to embed (a string, strings, token ids or
// arrays of token ids, as OpenAI takes them), how to encode the vectors and how long to make them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "openai/api_error.hpp"

namespace infergate::openai {

// OpenAI's limit on the inputs of one request.
inline constexpr std::size_t kMaxEmbeddingInputs = 2048;

struct EmbeddingInput {
  std::size_t tokens = 0;  // whitespace-separated words, or token ids: the simulator's token count
  std::uint64_t hash = 0;  // of the text or the ids: equal inputs get equal vectors
};

struct EmbeddingRequest {
  std::string model;
  std::vector<EmbeddingInput> inputs;  // in the order of "input"; the response's indexes
  bool base64 = false;                 // encoding_format "base64" (little-endian float32), else floats
  std::optional<std::int64_t> dimensions;
};

// Fills `out` and returns nothing, or returns the 400 to send: a wrong type or an empty input,
// naming the field ("input[2]").
std::optional<ApiError> parse_embedding_request(std::string_view body, EmbeddingRequest& out);

}  // namespace infergate::openai
