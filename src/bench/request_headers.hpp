#pragma once
// `--header "Name: value"`: a header field sent with every request the benchmark makes of the
// endpoint (its requests and the model list), for what a gateway or a provider reads from its own
// headers: an `api-key`, a route, a tenant, a trace id.
#include <string>
#include <string_view>

namespace infergate::bench {

struct HeaderField {
  std::string name;
  std::string value;
};

// Throws std::invalid_argument when `text` is not `Name: value` with a valid field name and a value
// without control characters, or names a field the benchmark sets itself (the message says which
// option sets it): the request's framing (Host, Content-Length, Transfer-Encoding, Connection and
// the other hop-by-hop fields), Content-Type, Accept, Authorization (--api-key) and the trace flag
// (--trace). User-Agent may be given: it replaces the benchmark's. A message never repeats the
// value, which may be a key.
[[nodiscard]] HeaderField parse_header_option(std::string_view text);

}  // namespace infergate::bench
