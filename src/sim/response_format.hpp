#pragma once
// How the simulator words an answer of the Responses API (POST /v1/responses): the response
// object, and its stream of typed events (created, the output item and its text part added, the
// text deltas, their ends, then completed or incomplete with the usage), as OpenAI's API sends them.
// An answer that calls a tool is a function_call item, added with its first token, whose arguments
// stream as deltas.
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/tool_call_format.hpp"

namespace infergate::sim {

struct ResponseAnswer {
  std::string_view id;          // "resp-sim-1"; its message is "msg-sim-1"
  std::int64_t created_at = 0;  // Unix seconds
  std::string_view model_json;  // the model's name as a JSON string
  std::uint64_t seed = 0;       // of the output text (text_generator.hpp)
  int input_tokens = 0;
  int output_tokens = 0;
  bool incomplete = false;  // stopped at max_output_tokens
  bool usage = true;        // false: "usage" is null (a fault that leaves it out)
  // Members added at the end of the whole response, or of the stream's last event: ",\"name\":...".
  std::string_view extra;
  const ToolCallAnswer* tool_call = nullptr;  // the call that answers, in place of a message
};

// The whole response of a request that did not stream.
std::string response_json(const ResponseAnswer& answer);

// The stream's events, each "event: <type>\ndata: {...}\n\n". `sequence` numbers them across calls.
void append_start_events(std::string& out, const ResponseAnswer& answer, int& sequence);
void append_delta_event(std::string& out, const ResponseAnswer& answer, int& sequence, int first, int count);
void append_end_events(std::string& out, const ResponseAnswer& answer, int& sequence);

}  // namespace infergate::sim
