#include "sim/tool_call_format.hpp"

#include <fmt/format.h>

#include <iterator>

#include "core/json_string.hpp"
#include "core/random.hpp"
#include "sim/text_generator.hpp"

namespace infergate::sim {

namespace {

std::string quoted(std::string_view text) {
  std::string literal;
  append_json_string(literal, text);
  return literal;
}

// `text` as it goes inside a JSON string literal: escaped, without the quotes.
std::string escaped(std::string_view text) {
  const std::string literal = quoted(text);
  return literal.substr(1, literal.size() - 2);
}

}  // namespace

std::string function_name_json(const ToolCallAnswer& answer) {
  return quoted(answer.call.name);
}

bool chooses_tool_call(std::uint64_t prompt_hash, double share) {
  return unit_interval(mix64(prompt_hash ^ 0x2545f4914f6cdd1dULL)) < share;
}

void append_arguments(std::string& out, const ToolCallAnswer& answer, int first, int count) {
  if (first == 0) {
    out += escaped("{" + quoted(answer.call.argument) + ":\"");
  }
  append_output(answer.seed, first, count, out);
  if (answer.complete && first + count == answer.output_tokens) {
    out += escaped("\"}");
  }
}

void append_tool_call_delta(std::string& out, const ToolCallAnswer& answer, int first, int count) {
  out += R"("tool_calls":[{"index":0,)";
  if (first == 0) {
    fmt::format_to(std::back_inserter(out), R"("id":"{}","type":"function","function":{{"name":{},)", answer.call_id,
                   function_name_json(answer));
  } else {
    out += R"("function":{)";
  }
  out += R"("arguments":")";
  append_arguments(out, answer, first, count);
  out += R"("}}])";
}

void append_tool_calls(std::string& out, const ToolCallAnswer& answer) {
  fmt::format_to(std::back_inserter(out),
                 R"("tool_calls":[{{"id":"{}","type":"function","function":{{"name":{},"arguments":")", answer.call_id,
                 function_name_json(answer));
  append_arguments(out, answer, 0, answer.output_tokens);
  out += R"("}}])";
}

}  // namespace infergate::sim
