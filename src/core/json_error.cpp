#include "core/json_error.hpp"

#include <fmt/format.h>

#include <boost/json/error.hpp>
#include <boost/json/parser.hpp>

#include "core/utf8_text.hpp"

namespace infergate {

namespace json = boost::json;

namespace {

bool continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// "line L, column C" of `offset`, counting characters (UTF-8 sequences), both from 1.
std::string position(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else if (!continuation(static_cast<unsigned char>(text[i]))) {
      ++column;
    }
  }
  return fmt::format("line {}, column {}", line, column);
}

}  // namespace

std::string describe_json_error(std::string_view text, std::size_t offset, boost::system::error_code ec) {
  if (ec == json::error::incomplete) {
    return text.find_first_not_of(" \t\r\n") == std::string_view::npos ? "it is empty"
                                                                       : "it ends before the JSON value does";
  }
  if (ec == json::error::extra_data) {
    offset = std::min(text.find_first_not_of(" \t\r\n", offset), text.size());
    return "extra data after the JSON value at " + position(text, offset);
  }
  if (offset < text.size() && static_cast<unsigned char>(text[offset]) >= 0x80 &&
      utf8_sequence(text.data() + offset, text.data() + text.size()) == 0) {
    return "invalid UTF-8 at " + position(text, offset);
  }
  return fmt::format("{} at {}", ec.message(), position(text, offset));
}

json::value parse_json(std::string_view text, std::string& error, json::storage_ptr sp) {
  // As json::parse does: the parser's scratch space on the stack, the value in `sp`.
  unsigned char scratch[BOOST_JSON_STACK_BUFFER_SIZE];
  json::parser parser(json::storage_ptr(), {}, scratch);
  parser.reset(std::move(sp));
  boost::system::error_code ec;
  const std::size_t consumed = parser.write(text.data(), text.size(), ec);
  if (ec) {
    error = describe_json_error(text, consumed, ec);
    return nullptr;
  }
  return parser.release();
}

}  // namespace infergate
