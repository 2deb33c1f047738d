#include "core/utf8_text.hpp"

#include <algorithm>

namespace infergate {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

bool continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// The length of the well-formed character at text[i], 0 when none begins there.
std::size_t character_length(std::string_view text, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = at(0);
  if (c < 0x80) {
    return 1;
  }
  std::size_t n = 0;
  unsigned char low = 0x80;  // the second byte's range, narrowed where the first byte requires
  unsigned char high = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    low = c == 0xE0 ? 0xA0 : 0x80;   // not overlong
    high = c == 0xED ? 0x9F : 0xBF;  // not a surrogate
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    low = c == 0xF0 ? 0x90 : 0x80;   // not overlong
    high = c == 0xF4 ? 0x8F : 0xBF;  // not past U+10FFFF
  } else {
    return 0;
  }
  if (i + n > text.size() || at(1) < low || at(1) > high) {
    return 0;
  }
  for (std::size_t k = 2; k < n; ++k) {
    if (!continuation(at(k))) {
      return 0;
    }
  }
  return n;
}

}  // namespace

std::string valid_utf8(std::string_view text, std::size_t most) {
  const std::size_t end = std::min(most, text.size());
  std::string out;
  out.reserve(end);
  for (std::size_t i = 0; i < end;) {
    const std::size_t n = character_length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
    } else if (i + n > end) {
      break;  // a whole character that the cut would split
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace infergate
