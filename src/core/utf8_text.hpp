#pragma once
// UTF-8: the one check of a character's bytes (the JSON readers and their error messages use it),
// and text from elsewhere (an upstream's error page, cut to a length) made fit for JSON, whose
// strings must be UTF-8: a JSON writer copies bytes as they are, and a line holding a stray byte
// is one a strict reader refuses whole.
#include <cstddef>
#include <string>
#include <string_view>

namespace infergate {

// The length of the well-formed UTF-8 sequence at `p` (Unicode's table 3-7: no overlong forms,
// no surrogates, nothing past U+10FFFF), or 0 when there is none before `end`.
inline std::size_t utf8_sequence(const char* p, const char* end) {
  const auto available = end - p;
  const auto byte = [p](std::ptrdiff_t i) { return static_cast<unsigned char>(p[i]); };
  const auto follows = [&](std::ptrdiff_t i, unsigned low = 0x80, unsigned high = 0xbf) {
    return i < available && byte(i) >= low && byte(i) <= high;
  };
  const unsigned lead = byte(0);
  if (lead >= 0xc2 && lead <= 0xdf) {
    return follows(1) ? 2 : 0;
  }
  if (lead >= 0xe0 && lead <= 0xef) {
    const unsigned low = lead == 0xe0 ? 0xa0 : 0x80;
    const unsigned high = lead == 0xed ? 0x9f : 0xbf;
    return follows(1, low, high) && follows(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const unsigned low = lead == 0xf0 ? 0x90 : 0x80;
    const unsigned high = lead == 0xf4 ? 0x8f : 0xbf;
    return follows(1, low, high) && follows(2) && follows(3) ? 4 : 0;
  }
  return 0;
}

// `text` with each byte that neither begins nor continues a well-formed UTF-8 character (as
// utf8_sequence has it) replaced by U+FFFD, cut at a character's
// boundary to at most `most` bytes of `text`.
std::string valid_utf8(std::string_view text, std::size_t most = std::string_view::npos);

}  // namespace infergate
