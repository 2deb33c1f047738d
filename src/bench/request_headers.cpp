#include "bench/request_headers.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/trim.hpp"
#include "http/message_head.hpp"

namespace infergate::bench {

namespace {

struct Owned {
  std::string_view name;
  std::string_view owner;
};

constexpr std::string_view kFraming = "frames the request; the benchmark sets it";

constexpr Owned kOwned[] = {
    {"host", kFraming},
    {"content-length", kFraming},
    {"transfer-encoding", kFraming},
    {"connection", kFraming},
    {"keep-alive", kFraming},
    {"te", kFraming},
    {"trailer", kFraming},
    {"upgrade", kFraming},
    {"expect", kFraming},
    {"content-type", "is application/json, set by the benchmark"},
    {"accept", "is set by the benchmark (text/event-stream for a stream)"},
    {"authorization", "is set from --api-key (or $OPENAI_API_KEY, or a --target's api_key_env)"},
    {"x-infergate-trace", "is set by --trace"},
};

}  // namespace

HeaderField parse_header_option(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    throw std::invalid_argument("expected 'Name: value', and this one has no ':'");
  }
  HeaderField field{std::string(text.substr(0, colon)), std::string(trim_blanks(text.substr(colon + 1)))};
  if (!http::is_token(field.name)) {
    throw std::invalid_argument(fmt::format(
        "'{}': a header's name is one or more letters, digits and !#$%&'*+-.^_`|~ before the ':'", field.name));
  }
  if (!http::is_field_value(field.value)) {
    throw std::invalid_argument(
        fmt::format("'{}': its value holds a control character (a line break would start another header)", field.name));
  }
  for (const Owned& owned : kOwned) {
    if (http::iequals(field.name, owned.name)) {
      throw std::invalid_argument(fmt::format("{} {}", field.name, owned.owner));
    }
  }
  return field;
}

}  // namespace infergate::bench
