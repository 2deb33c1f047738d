#pragma once
// bench's `--header "Name: value"` (http/header_option.hpp): sent with every request the benchmark
// makes of the endpoint, its load and the model list.
#include <string_view>

#include "http/header_option.hpp"

namespace infergate::bench {

using HeaderField = http::HeaderField;

// As http::parse_header_option, refusing too the fields the benchmark sets (the message says which
// option sets each): Content-Type, Accept, Authorization (--api-key) and the trace flag (--trace).
// User-Agent may be given: it replaces the benchmark's.
[[nodiscard]] HeaderField parse_header_option(std::string_view text);

}  // namespace infergate::bench
