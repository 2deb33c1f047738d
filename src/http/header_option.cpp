#include "http/header_option.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/trim.hpp"
#include "http/message_head.hpp"

namespace infergate::http {

namespace {

constexpr std::string_view kFraming[] = {"host", "content-length", "transfer-encoding", "connection", "keep-alive",
                                         "te",   "trailer",        "upgrade",           "expect"};

}  // namespace

HeaderField parse_header_option(std::string_view text, std::span<const OwnedHeader> owned) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    throw std::invalid_argument("expected 'Name: value', and this one has no ':'");
  }
  HeaderField field{std::string(text.substr(0, colon)), std::string(trim_blanks(text.substr(colon + 1)))};
  if (!is_token(field.name)) {
    throw std::invalid_argument(fmt::format(
        "'{}': a header's name is one or more letters, digits and !#$%&'*+-.^_`|~ before the ':'", field.name));
  }
  if (!is_field_value(field.value)) {
    throw std::invalid_argument(
        fmt::format("'{}': its value holds a control character (a line break would start another header)", field.name));
  }
  for (const std::string_view framing : kFraming) {
    if (iequals(field.name, framing)) {
      throw std::invalid_argument(fmt::format("{} frames the request; it is set for you", field.name));
    }
  }
  for (const OwnedHeader& o : owned) {
    if (iequals(field.name, o.name)) {
      throw std::invalid_argument(fmt::format("{} {}", field.name, o.owner));
    }
  }
  return field;
}

void append_header_fields(std::span<const HeaderField> fields, std::string_view agent, std::vector<Header>& out) {
  bool replaced = false;
  for (const HeaderField& field : fields) {
    out.push_back({field.name, field.value});
    replaced = replaced || iequals(field.name, "User-Agent");
  }
  if (!replaced) {
    out.push_back({"User-Agent", agent});
  }
}

}  // namespace infergate::http
