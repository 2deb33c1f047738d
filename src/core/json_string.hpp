#pragma once
// JSON string literals written by hand for the lines the gateway appends per request (access log,
// usage journal): only what JSON requires is escaped, and runs of other bytes are copied whole.
#include <cstddef>
#include <string>
#include <string_view>

namespace infergate {

// Appends `text` as a JSON string literal, quotes included.
void append_json_string(std::string& out, std::string_view text);

// The most bytes the literal of `size` bytes of text can take (each byte as \u00XX, and quotes).
constexpr std::size_t json_string_bound(std::size_t size) {
  return 2 + 6 * size;
}

// Writes the literal at `out`, which has room for json_string_bound(text.size()) bytes; returns
// where it ends.
char* write_json_string(char* out, std::string_view text);

}  // namespace infergate
