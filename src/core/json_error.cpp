#include "core/json_error.hpp"

#include <fmt/format.h>

#include <boost/json/error.hpp>
#include <boost/json/parser.hpp>

namespace infergate {

namespace json = boost::json;

namespace {

bool continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// True when `text` starts with one well-formed UTF-8 sequence (no overlong form, no surrogate,
// nothing past U+10FFFF).
bool valid_utf8_sequence(std::string_view text) {
  const auto byte = [&](std::size_t i) { return i < text.size() ? static_cast<unsigned char>(text[i]) : 0; };
  const unsigned char lead = byte(0);
  if (lead < 0x80) {
    return true;
  }
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;  // the range of the byte after the lead
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    low = lead == 0xE0 ? 0xA0 : 0x80;
    high = lead == 0xED ? 0x9F : 0xBF;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    low = lead == 0xF0 ? 0x90 : 0x80;
    high = lead == 0xF4 ? 0x8F : 0xBF;
  } else {
    return false;
  }
  if (byte(1) < low || byte(1) > high) {
    return false;
  }
  for (std::size_t i = 2; i < length; ++i) {
    if (!continuation(byte(i))) {
      return false;
    }
  }
  return true;
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
  if (offset < text.size() && !valid_utf8_sequence(text.substr(offset))) {
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
