#pragma once
// How the simulator words a tool call (openai/tool_choice.hpp), and when it makes one unasked
// (chooses_tool_call below). The call's arguments are
// the output's tokens as the value of the function's first argument, {"city":" w0 w1 ..."}, so
// that each token streams as a piece of the arguments, as a model's would. An answer stopped at
// its length leaves them cut short, as a model's are.
#include <cstdint>
#include <string>
#include <string_view>

#include "openai/tool_choice.hpp"

namespace infergate::sim {

struct ToolCallAnswer {
  const openai::ToolFunction& call;
  std::string_view call_id;  // "call_sim_1"
  std::uint64_t seed = 0;    // of the output text (text_generator.hpp)
  int output_tokens = 0;
  bool complete = true;  // false: stopped at its length, the arguments' JSON left open
};

// Tokens [first, first + count) of the arguments, as they go inside a JSON string: the first
// opens the JSON object, the last closes it when the answer is complete.
void append_arguments(std::string& out, const ToolCallAnswer& answer, int first, int count);

// A streamed chunk's delta member for those tokens, `"tool_calls":[...]`: the first names the
// call (its id, type and function name), the rest carry arguments alone.
void append_tool_call_delta(std::string& out, const ToolCallAnswer& answer, int first, int count);

// A whole message's member `"tool_calls":[...]`, the call and all its arguments.
void append_tool_calls(std::string& out, const ToolCallAnswer& answer);

// The call's function name as a JSON string literal, quotes included.
std::string function_name_json(const ToolCallAnswer& answer);

// Whether a request whose tool_choice leaves the call to the model (tool_choice.hpp's `offered`)
// is answered with the call: for `share` (0 to 1) of prompts, drawn from the prompt's hash, so
// that one prompt is always answered alike, as a model at temperature 0 answers it.
bool chooses_tool_call(std::uint64_t prompt_hash, double share);

}  // namespace infergate::sim
