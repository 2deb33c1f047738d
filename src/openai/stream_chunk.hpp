#pragma once
// Client-side view of what a server sends back: one streamed chunk (the data of one SSE event) or a
// whole non-streamed response. Only what a benchmark or gateway needs is extracted; the rest of the
// JSON is left alone.
#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace infergate::openai {

struct Usage {
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
};

// The counts in a parsed usage object: prompt_tokens and completion_tokens, or the Responses API's
// input_tokens and output_tokens; one missing or not an integer counts 0.
Usage usage_from_object(const boost::json::object& usage);

// infergate's ground truth from the simulator (request header x-infergate-trace: 1).
struct ServerTrace {
  std::int64_t arrival_ns = 0;
  std::int64_t first_token_ns = 0;
  std::int64_t last_token_ns = 0;
};

struct ChunkView {
  std::size_t text_bytes = 0;  // generated text in this event: content, reasoning, completion text or tool calls
  bool has_choices = false;    // false for the usage-only chunk that include_usage adds at the end
  std::optional<Usage> usage;
  std::optional<std::string> finish_reason;
  std::optional<ServerTrace> trace;
  std::optional<std::string> error;  // the server sent an error object instead of a chunk
};

// Returns a description of the problem when `data` is not a JSON object. With `content`, the
// answer's text (chat content or completion text, not reasoning) is appended to it.
std::optional<std::string> parse_stream_chunk(std::string_view data, ChunkView& out, std::string* content = nullptr);

// Same extraction from a non-streamed chat.completion or text_completion body.
std::optional<std::string> parse_completion_response(std::string_view body, ChunkView& out,
                                                     std::string* content = nullptr);

// The same of the Responses API (POST /v1/responses): one event of its stream, known by its
// "type" (a delta of generated output is text; the last event's response gives the usage, and its
// status a finish_reason: "stop" when completed, "length" when incomplete; response.failed and
// error events are errors), and a whole response object. Usage counts input_tokens and
// output_tokens.
std::optional<std::string> parse_response_stream_event(std::string_view data, ChunkView& out,
                                                       std::string* content = nullptr);
std::optional<std::string> parse_response_object(std::string_view body, ChunkView& out, std::string* content = nullptr);

}  // namespace infergate::openai
