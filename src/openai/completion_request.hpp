#pragma once
// Server-side view of POST /v1/chat/completions, /v1/completions and /v1/responses: the fields a
// server acts on, each type-checked. A wrong type is a 400 naming the field, never a silent default.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "openai/api_error.hpp"
#include "openai/tool_choice.hpp"

namespace infergate::openai {

// Prompt words per prefix block (vLLM's default KV block size, with one word per token).
inline constexpr std::size_t kPrefixBlockWords = 16;

// The API a request goes to. Embeddings generate nothing: bench measures them as whole answers.
enum class Endpoint { chat, completions, responses, embeddings };

// Its path under the API's base URL (/v1).
[[nodiscard]] constexpr std::string_view endpoint_path(Endpoint endpoint) {
  switch (endpoint) {
    case Endpoint::chat:
      return "/chat/completions";
    case Endpoint::completions:
      return "/completions";
    case Endpoint::responses:
      return "/responses";
    case Endpoint::embeddings:
      return "/embeddings";
  }
  return "";
}

struct CompletionRequest {
  Endpoint endpoint = Endpoint::chat;
  std::string model;
  bool stream = false;
  bool include_usage = false;
  // max_completion_tokens wins over max_tokens; the Responses API's is max_output_tokens.
  std::optional<std::int64_t> max_tokens;
  std::int64_t min_tokens = 0;
  bool ignore_eos = false;
  // Whitespace-separated words over every text of the prompt (token ids count one each): a
  // tokenizer-free estimate of prompt tokens.
  std::size_t prompt_words = 0;
  std::uint64_t prompt_hash = 0;  // of the prompt text, for output that is deterministic per prompt
  // For each full block of kPrefixBlockWords prompt words, a hash of the prompt up to its end (the
  // roles of the messages included): equal prompt prefixes give equal leading hashes.
  std::vector<std::uint64_t> prefix_blocks;
  // The function a chat or Responses API request makes, or lets, the model call (tool_choice.hpp).
  ToolChoice tool_choice;
};

// Fills `out` and returns nothing, or returns the error to send.
std::optional<ApiError> parse_completion_request(std::string_view body, Endpoint endpoint, CompletionRequest& out);

}  // namespace infergate::openai
