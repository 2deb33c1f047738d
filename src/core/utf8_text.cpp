#include "core/utf8_text.hpp"

#include <algorithm>

namespace infergate {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// The length of the well-formed character at text[i], 0 when none begins there.
std::size_t character_length(std::string_view text, std::size_t i) {
  return static_cast<unsigned char>(text[i]) < 0x80 ? 1 : utf8_sequence(text.data() + i, text.data() + text.size());
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
