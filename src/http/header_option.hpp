#pragma once
// `--header "Name: value"`: a header field a command line adds to the requests a tool sends
// (bench's load and model list, doctor's checks), for what a gateway or a provider reads from its
// own headers: an `api-key`, a route, a tenant, a trace id.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "http/header.hpp"

namespace infergate::http {

struct HeaderField {
  std::string name;
  std::string value;
};

// A field the tool sets itself, and what sets it instead ("is set from --api-key").
struct OwnedHeader {
  std::string_view name;  // lower case
  std::string_view owner;
};

// Throws std::invalid_argument when `text` is not `Name: value` with a valid field name and a value
// without control characters, or names a field the request's framing needs (Host, Content-Length,
// Transfer-Encoding, Connection and the other hop-by-hop fields) or one of `owned`; the message
// says which. A message never repeats the value, which may be a key.
[[nodiscard]] HeaderField parse_header_option(std::string_view text, std::span<const OwnedHeader> owned);

// Appends `fields` (views into them) to `out`, then `User-Agent: agent` unless one of them is a
// User-Agent: the tool names itself to servers that log or refuse requests without one, and the
// user's own agent replaces it.
void append_header_fields(std::span<const HeaderField> fields, std::string_view agent, std::vector<Header>& out);

}  // namespace infergate::http
