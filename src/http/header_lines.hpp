#pragma once
// Header fields as lines of an HTTP/1.1 head ("name: value" and CRLF each), written through a
// TextWriter: both heads built per request, the upstream request's and the client's response,
// carry them.
#include <cstddef>
#include <span>

#include "core/text_writer.hpp"
#include "http/header.hpp"

namespace infergate::http {

// The bytes write_header_lines writes for `headers`.
inline std::size_t header_lines_bound(std::span<const Header> headers) {
  std::size_t bytes = 0;
  for (const Header& h : headers) {
    bytes += h.name.size() + h.value.size() + 4;
  }
  return bytes;
}

inline void write_header_lines(TextWriter& w, std::span<const Header> headers) {
  for (const Header& h : headers) {
    w.text(h.name);
    w.literal(": ");
    w.text(h.value);
    w.literal("\r\n");
  }
}

}  // namespace infergate::http
