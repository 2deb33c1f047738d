#include "openai/usage_scanner.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "openai/json_marks.hpp"
#include "openai/usage_object.hpp"

namespace infergate::openai {

namespace {

// Names longer than this are of no interest; their text is not kept.
constexpr std::size_t kLongestName = 6;
// A usage object is a few hundred bytes; a larger one is not what we look for.
constexpr std::size_t kMaxCapture = std::size_t{64} << 10;

// The bytes that change the state below the top level outside a string.
constexpr auto kStructural = [] {
  std::array<bool, 256> table{};
  for (const unsigned char c : {'"', '{', '}', '[', ']'}) {
    table[c] = true;
  }
  return table;
}();

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Where the next quote or backslash is, or `end`: the bytes of a string that need a look. Strings
// are mostly short names, where a call to memchr costs more than the search.
const char* next_quote_or_backslash(const char* p, const char* end) {
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  for (; end - p >= 16; p += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i hits = _mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash));
    if (const int mask = _mm_movemask_epi8(hits); mask != 0) {
      return p + __builtin_ctz(static_cast<unsigned>(mask));
    }
  }
#endif
  while (p < end && *p != '"' && *p != '\\') {
    ++p;
  }
  return p;
}

// Where the next byte that changes the nesting below the top level is (a quote, a bracket or a
// brace), or `end`. Everything at that depth but those bytes and the strings they open is skipped,
// so the bytes are passed over 16 at a time where the machine can.
const char* next_structural(const char* p, const char* end) {
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"');
  // '[' ']' '{' '}' are 0x5b 0x5d 0x7b 0x7d: with bit 0x20 cleared, 0x5b and 0x5d.
  const __m128i fold = _mm_set1_epi8(static_cast<char>(~0x20));
  const __m128i open = _mm_set1_epi8('[');
  const __m128i close = _mm_set1_epi8(']');
  for (; end - p >= 16; p += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i folded = _mm_and_si128(block, fold);
    const __m128i hits = _mm_or_si128(_mm_cmpeq_epi8(block, quote),
                                      _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)));
    if (const int mask = _mm_movemask_epi8(hits); mask != 0) {
      return p + __builtin_ctz(static_cast<unsigned>(mask));
    }
  }
#endif
  while (p < end && !kStructural[static_cast<unsigned char>(*p)]) {
    ++p;
  }
  return p;
}

const char* skip_blanks(const char* p, const char* end) {
  while (p != end && is_space(*p)) {
    ++p;
  }
  return p;
}

// Past a number, true, false or null (or any other run of bytes the state machine would take as
// one); stops at whatever could follow a value.
const char* past_scalar(const char* p, const char* end) {
  while (p != end && !is_space(*p) && *p != ',' && !kStructural[static_cast<unsigned char>(*p)]) {
    ++p;
  }
  return p;
}

}  // namespace

// Below the top level only strings and nesting matter: stays in this loop until the value that
// began at the top closes (ending a capture there) or the piece ends.
[[gnu::always_inline]] inline void UsageScanner::skip_nested(const char*& p, const char* end, const char*& captured) {
  while (p < end) {
    p = next_structural(p, end);
    if (p == end) {
      return;
    }
    const char c = *p++;
    if (c == '"') {
      in_string_ = true;
      p = skip_string(p, end);
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (--depth_ == 1) {  // '}' or ']'
      if (capturing_ != Member::other) {
        end_capture(capturing_, captured, p);
        capturing_ = Member::other;
        captured = nullptr;
      }
      return;
    }
  }
}

// Strings are skipped with next_quote_or_backslash and nesting below the top level with next_structural: the state
// machine proper only sees the few bytes between the top-level members.
void UsageScanner::feed(std::string_view bytes) {
  if (state_ == State::start && read_whole(bytes)) {
    return;
  }
  const char* p = bytes.data();
  const char* const end = p + bytes.size();
  const char* captured = capturing_ != Member::other ? p : nullptr;
  if (state_ == State::done || state_ == State::not_object) {
    return;
  }
  while (p < end) {
    if (in_string_) {
      const char* from = p;
      p = skip_string(p, end);
      if (reading_key_) {
        read_key(from, in_string_ ? p : p - 1);
      }
      continue;
    }
    if (depth_ >= 2) {
      skip_nested(p, end, captured);
      continue;
    }
    const Member before = capturing_;
    const char* at = p;
    on_char(*p++);
    if (state_ == State::done || state_ == State::not_object) {  // only a byte at the top changes it
      break;
    }
    if (before == Member::other && capturing_ != Member::other) {
      captured = at;
    }
  }
  if (captured != nullptr && capturing_ != Member::other) {
    append_capture(capturing_, captured, p);
  }
}

// The body's first piece, when it holds the whole object and that object is well formed: read
// member by member where it lies, with no state kept between bytes. Anything else (a piece that
// ends inside the object, a malformed member) is left to the state machine, nothing changed. Only
// called before the object's first byte, so no usage has been kept yet.
bool UsageScanner::read_whole(std::string_view bytes) {
  JsonMarks marks(bytes);
  const char* const end = marks.end();
  const char* p = skip_blanks(bytes.data(), end);
  if (p == end || *p != '{') {
    return false;
  }
  std::optional<Usage> usage;
  std::optional<Usage> groq;
  p = skip_blanks(p + 1, end);
  if (p != end && *p == '}') {
    state_ = State::done;
    return true;
  }
  for (;;) {
    if (p == end || *p != '"') {
      return false;
    }
    const char* const name = p + 1;
    p = marks.past_string(name);
    if (p == nullptr) {
      return false;
    }
    const std::string_view key(name, static_cast<std::size_t>(p - 1 - name));
    p = skip_blanks(p, end);
    if (p == end || *p != ':') {
      return false;
    }
    p = skip_blanks(p + 1, end);
    if (p == end) {
      return false;
    }
    const char* const value = p;
    if (*p == '{' || *p == '[') {
      p = marks.past_container(p);
      if (p == nullptr) {
        return false;
      }
      const auto size = static_cast<std::size_t>(p - value);
      if (*value == '{' && (key == "usage" || key == "x_groq")) {
        const bool nested = key == "x_groq";
        (nested ? groq : usage) =
            size <= kMaxCapture ? parse_usage(std::string_view(value, size), nested) : std::nullopt;
      }
    } else if (*p == '"') {
      p = marks.past_string(p + 1);
      if (p == nullptr) {
        return false;
      }
    } else {
      p = past_scalar(p, end);
    }
    p = skip_blanks(p, end);
    if (p == end) {
      return false;
    }
    if (*p == '}') {
      break;
    }
    if (*p != ',') {
      return false;
    }
    p = skip_blanks(p + 1, end);
  }
  if (marks.stray_backslash()) {
    return false;  // the state machine may find other strings
  }
  usage_.usage = usage;
  groq_.usage = groq;
  state_ = State::done;
  return true;
}

// Keeps a member name's bytes while it could still be one of interest; decides at its closing quote.
void UsageScanner::read_key(const char* from, const char* to) {
  const auto length = static_cast<std::size_t>(to - from);
  if (key_size_ + length <= kLongestName) {
    std::memcpy(key_ + key_size_, from, length);
  }
  key_size_ += length;
  if (!in_string_) {
    reading_key_ = false;
    const std::string_view key(key_, std::min(key_size_, kLongestName + 1));
    pending_ = key == "usage" ? Member::usage : key == "x_groq" ? Member::x_groq : Member::other;
  }
}

void UsageScanner::append_capture(Member member, const char* from, const char* to) {
  std::string& text = capture(member).text;
  text.append(from, std::min(static_cast<std::size_t>(to - from), kMaxCapture - std::min(kMaxCapture, text.size())));
}

void UsageScanner::end_capture(Member member, const char* from, const char* to) {
  Capture& c = capture(member);
  const bool nested = member == Member::x_groq;
  if (c.text.empty()) {
    const auto size = static_cast<std::size_t>(to - from);
    c.usage = size <= kMaxCapture ? parse_usage(std::string_view(from, size), nested) : std::nullopt;
    return;
  }
  append_capture(member, from, to);
  c.usage = parse_usage(c.text, nested);
  c.text.clear();
}

// Inside a string: jumps past its closing quote, or to the end of the piece, remembering a
// backslash that escapes the next piece's first byte.
[[gnu::always_inline]] inline const char* UsageScanner::skip_string(const char* p, const char* end) {
  if (escaped_) {
    escaped_ = false;
    ++p;
  }
  for (;;) {
    p = next_quote_or_backslash(p, end);
    if (p == end) {
      return end;
    }
    if (*p == '"') {
      in_string_ = false;
      return p + 1;
    }
    if (end - p == 1) {  // a backslash that ends the piece escapes the next one's first byte
      escaped_ = true;
      return end;
    }
    p += 2;
  }
}

// One byte outside any string, before the object or at its top level: deeper bytes are
// skip_nested's, so every name and value seen here is one of the object's own members.
[[gnu::always_inline]] inline void UsageScanner::on_char(char c) {
  if (state_ == State::start) {
    if (c == '{') {
      state_ = State::object;
      depth_ = 1;
      expect_key_ = true;
    } else if (!is_space(c)) {
      state_ = State::not_object;
    }
    return;
  }
  switch (c) {
    case '"':
      in_string_ = true;
      if (expect_key_) {
        reading_key_ = true;
        expect_key_ = false;
        key_size_ = 0;
      }
      return;
    case '{':
    case '[':
      if (pending_ != Member::other && c == '{') {
        capturing_ = pending_;
        capture(capturing_) = Capture{};  // the last member of a name counts, as in a DOM
      }
      pending_ = Member::other;
      ++depth_;
      return;
    case '}':
    case ']':
      if (--depth_ == 0) {  // the feed loop sees the closing bytes of deeper values
        state_ = State::done;
      }
      return;
    case ',':
      expect_key_ = true;
      pending_ = Member::other;
      return;
    case ':':
      return;
    default:
      if (!is_space(c)) {
        pending_ = Member::other;  // a scalar value: nothing to capture
      }
      return;
  }
}

std::optional<Usage> UsageScanner::usage() const {
  if (state_ != State::done) {
    return std::nullopt;
  }
  return usage_.usage ? usage_.usage : groq_.usage;
}

}  // namespace infergate::openai
