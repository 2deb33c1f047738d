#pragma once
// The token usage in the text of one usage object: what the gateway reads from every answer that is
// not streamed (and from Groq's x_groq, which holds one).
#include <optional>
#include <string_view>

#include "openai/stream_chunk.hpp"

namespace infergate::openai {

// Usage from the text of a usage object (`nested`: from the object under "usage" in the object
// given). prompt_tokens and completion_tokens, or the Responses API's input_tokens and output_tokens;
// one that is not an integer counts 0, as a missing one
// does; nullopt when the text is not a JSON object, or (nested) holds no object under "usage".
std::optional<Usage> parse_usage(std::string_view text, bool nested);

// What parse_usage tries first, for tests: the usage objects providers send (members whose values
// are integers, decimal fractions, null, strings of ASCII without escapes or control bytes, or objects of
// these), read in one pass without a parser. `read` false: it declined the text, which parse_usage
// then gives to the JSON parser.
struct SimpleUsage {
  bool read = false;
  std::optional<Usage> usage;
};
SimpleUsage read_simple_usage(std::string_view text, bool nested);

// The JSON parser's reading: what parse_usage returns for any text, and read_simple_usage's oracle.
std::optional<Usage> parse_usage_with_parser(std::string_view text, bool nested);

}  // namespace infergate::openai
