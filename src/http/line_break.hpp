#pragma once
// Where a line of text/event-stream ends: its first CR or LF (either ends a line, per the spec).
// Runs for every event a proxy forwards, over lines of a few hundred bytes: one pass that looks
// for both bytes, 32 at a time where the CPU has AVX2, instead of a memchr for each.
#include <cstddef>
#include <string_view>

namespace infergate::http {

// The offset of the first CR or LF in `bytes`, npos when it holds neither.
std::size_t first_line_break(std::string_view bytes);

// The same with two memchr calls: what first_line_break falls back to, and its test oracle.
std::size_t first_line_break_memchr(std::string_view bytes);

}  // namespace infergate::http
