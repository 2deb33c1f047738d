#include "sim/tool_call_format.hpp"

#include <fmt/format.h>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

#include <iterator>

#include "sim/text_generator.hpp"

namespace infergate::sim {

namespace {

// `text` as a JSON string literal, quotes included.
std::string quoted(std::string_view text) {
  return boost::json::serialize(boost::json::string(text));
}

// `text` as it goes inside a JSON string literal: escaped, without the quotes.
std::string escaped(std::string_view text) {
  std::string literal = quoted(text);
  return literal.substr(1, literal.size() - 2);
}

}  // namespace

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
                   quoted(answer.call.name));
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
                 quoted(answer.call.name));
  append_arguments(out, answer, 0, answer.output_tokens);
  out += R"("}}])";
}

}  // namespace infergate::sim
