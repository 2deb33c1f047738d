#include "core/json_string.hpp"

#include <array>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace infergate {

namespace {

constexpr char kHexDigits[] = "0123456789abcdef";
constexpr std::array<bool, 256> kNeedsEscape = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) {
    t[c] = true;
  }
  t['"'] = true;
  t['\\'] = true;
  return t;
}();

// Where the first byte that needs escaping is, at or after `from`; the size when none does. Text
// sent per request (ids, model names) rarely holds one, so whole blocks are passed over at once.
std::size_t next_escape(std::string_view text, std::size_t from) {
  std::size_t i = from;
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control_max = _mm_set1_epi8(0x1f);
  for (; i + 16 <= text.size(); i += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    // Unsigned x <= 0x1f is max(x, 0x1f) == 0x1f.
    const __m128i hits = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash)),
                                      _mm_cmpeq_epi8(_mm_max_epu8(block, control_max), control_max));
    if (const int mask = _mm_movemask_epi8(hits); mask != 0) {
      return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    }
  }
#endif
  for (; i < text.size(); ++i) {
    if (kNeedsEscape[static_cast<unsigned char>(text[i])]) {
      return i;
    }
  }
  return text.size();
}

}  // namespace

char* write_json_string(char* out, std::string_view text) {
  *out++ = '"';
  std::size_t run = 0;
  for (std::size_t i = next_escape(text, 0); i < text.size(); i = next_escape(text, i + 1)) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::memcpy(out, text.data() + run, i - run);
    out += i - run;
    run = i + 1;
    *out++ = '\\';
    switch (c) {
      case '"':
      case '\\':
        *out++ = static_cast<char>(c);
        break;
      case '\n':
        *out++ = 'n';
        break;
      case '\r':
        *out++ = 'r';
        break;
      case '\t':
        *out++ = 't';
        break;
      default:
        out[0] = 'u';
        out[1] = '0';
        out[2] = '0';
        out[3] = kHexDigits[c >> 4];
        out[4] = kHexDigits[c & 0xf];
        out += 5;
    }
  }
  if (run < text.size()) {  // an empty view may have no data at all, which memcpy may not be given
    std::memcpy(out, text.data() + run, text.size() - run);
    out += text.size() - run;
  }
  *out++ = '"';
  return out;
}

void append_json_string(std::string& out, std::string_view text) {
  const std::size_t at = out.size();
  out.resize(at + json_string_bound(text.size()));
  char* const end = write_json_string(out.data() + at, text);
  out.resize(static_cast<std::size_t>(end - out.data()));
}

}  // namespace infergate
