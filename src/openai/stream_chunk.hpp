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
#include <vector>

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
  bool tool_call = false;      // some of that text was a tool call's name or arguments
  std::optional<Usage> usage;
  std::optional<std::string> finish_reason;
  std::optional<ServerTrace> trace;
  std::optional<std::string> error;  // the server sent an error object instead of a chunk
};

// A tool call an answer made, as a client sends it back in the conversation's next turn.
struct ReplyToolCall {
  std::string id;  // the Responses API's call_id
  std::string name;
  std::string arguments;  // JSON text, as generated
};

// What an answer said: its text (chat content or completion text, not reasoning) and the tool
// calls it made, each streamed delta added to the call its index names.
struct Reply {
  std::string text;
  std::vector<ReplyToolCall> tool_calls;
};

// Returns a description of the problem when `data` is not a JSON object. With `reply`, the
// answer's text and tool calls are added to it.
std::optional<std::string> parse_stream_chunk(std::string_view data, ChunkView& out, Reply* reply = nullptr);

// Same extraction from a non-streamed chat.completion or text_completion body.
std::optional<std::string> parse_completion_response(std::string_view body, ChunkView& out, Reply* reply = nullptr);

// The same of the Responses API (POST /v1/responses): one event of its stream, known by its
// "type" (a delta of generated output is text; the last event's response gives the usage, and its
// status a finish_reason: "stop" when completed, "length" when incomplete; response.failed and
// error events are errors), and a whole response object. Usage counts input_tokens and
// output_tokens. A stream's function calls are taken whole from its last event.
std::optional<std::string> parse_response_stream_event(std::string_view data, ChunkView& out, Reply* reply = nullptr);
std::optional<std::string> parse_response_object(std::string_view body, ChunkView& out, Reply* reply = nullptr);

}  // namespace infergate::openai
