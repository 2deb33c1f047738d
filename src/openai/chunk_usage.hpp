#pragma once
// What a proxy needs of the streamed chunk that carries the token usage: the usage, and whether
// the chunk also carries choices (the usage-only chunk that include_usage adds has none, and is
// removed for a client that did not ask for it). Read in one pass of the validating parser,
// without the DOM that parse_stream_chunk builds: this runs on the last chunk of every stream.
#include <optional>
#include <string_view>

#include "openai/stream_chunk.hpp"

namespace infergate::openai {

struct ChunkUsage {
  std::optional<Usage> usage;  // "usage", or Groq's "x_groq": {"usage"}, as parse_stream_chunk reads it
  bool has_choices = false;    // "choices" is a non-empty array
};

// Nothing when `data` is not a JSON object or carries a non-null "error" (where parse_stream_chunk
// reports an error and no usage); otherwise what parse_stream_chunk would read as usage and
// has_choices.
std::optional<ChunkUsage> read_chunk_usage(std::string_view data);

}  // namespace infergate::openai
