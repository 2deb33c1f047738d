#include "core/json_string.hpp"

#include <array>
#include <cstdint>
#include <cstring>

#include "core/byte_vector.hpp"

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
  const auto hits = [&](std::size_t at) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + at));
    // Unsigned x <= 0x1f is max(x, 0x1f) == 0x1f.
    return static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash)),
                                       _mm_cmpeq_epi8(_mm_max_epu8(block, control_max), control_max))));
  };
  for (; i + 16 <= text.size(); i += 16) {
    if (const unsigned mask = hits(i); mask != 0) {
      return i + static_cast<std::size_t>(__builtin_ctz(mask));
    }
  }
  if (i < text.size() && text.size() >= 16) {
    // The rest in one block that ends with the text, its bytes before `i` (checked, or before
    // `from`) left out.
    const std::size_t at = text.size() - 16;
    const unsigned mask = hits(at) >> (i - at);
    return mask == 0 ? text.size() : i + static_cast<std::size_t>(__builtin_ctz(mask));
  }
#endif
  for (; i < text.size(); ++i) {
    if (kNeedsEscape[static_cast<unsigned char>(text[i])]) {
      return i;
    }
  }
  return text.size();
}

// Whether no byte of `bytes` needs escaping. The comparisons' constants live in vector registers,
// which a call need not save: a word-at-a-time test of the same bytes keeps five 64-bit
// constants in general registers, and the whole function then saves and restores them.
bool none_needs_escape(Bytes16 bytes) {
  return !any_lane((bytes < 0x20) | (bytes == '"') | (bytes == '\\'));
}

template <class Word>
void store(char* at, Word w) {
  std::memcpy(at, &w, sizeof(w));
}

// Two eight-byte words (which may overlap) together in one vector.
Bytes16 both(std::uint64_t a, std::uint64_t b) {
  Bytes16 bytes;
  std::memcpy(&bytes, &a, sizeof(a));
  std::memcpy(reinterpret_cast<char*>(&bytes) + sizeof(a), &b, sizeof(b));
  return bytes;
}

// Copies `text`, of at most 16 bytes, to `out` when none of its bytes needs escaping, and says
// whether it did. Most strings of a log line (ids, names) are this short: a word or two, read and
// written overlapping, instead of a byte-by-byte scan and a call to memcpy.
bool copy_short_plain(char* out, std::string_view text) {
  const char* p = text.data();
  const std::size_t n = text.size();
  if (n >= 8) {
    const auto a = load_word<std::uint64_t>(p);
    const auto b = load_word<std::uint64_t>(p + n - 8);
    if (!none_needs_escape(both(a, b))) {
      return false;
    }
    store(out, a);
    store(out + n - 8, b);
    return true;
  }
  if (n >= 4) {
    const auto a = load_word<std::uint32_t>(p);
    const auto b = load_word<std::uint32_t>(p + n - 4);
    const std::uint64_t word = a | (std::uint64_t{b} << 32);
    if (!none_needs_escape(both(word, word))) {
      return false;
    }
    store(out, a);
    store(out + n - 4, b);
    return true;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (kNeedsEscape[static_cast<unsigned char>(p[i])]) {
      return false;
    }
    out[i] = p[i];
  }
  return true;
}

// The text at `out` with its escapes and the closing quote; returns where it ends. Out of line, so
// that the registers its loop needs are saved only for text that has something to escape.
[[gnu::noinline]] char* write_escaped(char* out, std::string_view text, std::size_t first) {
  std::size_t run = 0;
  for (std::size_t i = first; i < text.size(); i = next_escape(text, i + 1)) {
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

// A text longer than a short one's two words, the quote before it written.
[[gnu::noinline]] char* write_long(char* out, std::string_view text) {
  if (const std::size_t first = next_escape(text, 0); first < text.size()) {
    return write_escaped(out, text, first);
  }
  std::memcpy(out, text.data(), text.size());
  out += text.size();
  *out++ = '"';
  return out;
}

}  // namespace

char* write_json_string(char* out, std::string_view text) {
  *out++ = '"';
  if (text.size() > 16) {
    return write_long(out, text);
  }
  if (!copy_short_plain(out, text)) {
    return write_escaped(out, text, next_escape(text, 0));
  }
  out += text.size();
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
