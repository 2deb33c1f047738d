#pragma once
// Client-side view of an embeddings answer: how many vectors came back, how long they are, and
// the usage the server reported. The vectors themselves are only checked, never kept.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "openai/stream_chunk.hpp"

namespace infergate::openai {

struct EmbeddingReply {
  std::size_t vectors = 0;
  std::size_t dimensions = 0;  // of the first vector: floats, or float32s in base64
  std::optional<Usage> usage;
};

// Nothing, or what makes `body` no embeddings answer ("not valid JSON: ...", "without a 'data'
// array", "data[0] without an 'embedding'"), in words that follow "the response body is".
std::optional<std::string> parse_embedding_reply(std::string_view body, EmbeddingReply& out);

}  // namespace infergate::openai
