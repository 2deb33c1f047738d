#pragma once
// JSON string literals written by hand for the lines the gateway appends per request (access log,
// usage journal): only what JSON requires is escaped, and runs of other bytes are copied whole.
#include <string>
#include <string_view>

namespace infergate {

// Appends `text` as a JSON string literal, quotes included.
void append_json_string(std::string& out, std::string_view text);

}  // namespace infergate
