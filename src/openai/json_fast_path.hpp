#pragma once
// A faster reader for the JSON the gateway reads on every request (the request body, the usage of
// an answer or of a stream's last chunk), for the documents common there: strings of valid UTF-8
// with two-character escapes, integers of up to 18 digits, decimal fractions of up to 15, true,
// false, null, fewer than 32 levels deep, in one contiguous piece. It gives a handler of Boost.JSON's
// basic_parser the same events, in the same order, with the same values, as that parser would.
//
// It declines anything else (invalid UTF-8, a \u escape, a longer number, an exponent,
// "-0", an error of any kind, a handler that stops) and says so: the caller then reads the document
// again with basic_parser, which decides (and describes any error). A declined document has cost
// one partial pass. An accepted one costs about as many instructions as in basic_parser (the scan
// of the strings is most of both) from a tenth of the code: about 4 KB per handler against 48,
// which a request's path, larger than the instruction cache already, fetches again each time.
#include <boost/json/string_view.hpp>
#include <boost/system/error_code.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "core/utf8_text.hpp"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace infergate::openai {

namespace json_fast_path_detail {

// Boost.JSON's default limit is 32 levels; staying under it leaves the limit's edge to the parser.
constexpr int kMaxDepth = 31;
// 18 decimal digits always fit an int64; longer integers may be uint64 or double in Boost.JSON.
constexpr std::ptrdiff_t kMaxIntegerDigits = 18;
// A decimal fraction of up to 15 digits in all is an integer below 2^53 over a power of ten up to
// 10^15, both exactly doubles.
constexpr std::ptrdiff_t kMaxFractionDigits = 15;
constexpr double kPowersOfTen[kMaxFractionDigits + 1] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                         1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The bytes of the 16 at `p` that a string cannot simply continue with (see next_special): a quote,
// a backslash, or a signed byte below 0x20 (those of 0x80 and above are negative).
#ifdef __SSE2__
inline unsigned special_bytes_16(const char* p) {
  const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i hits =
      _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8('"')), _mm_cmpeq_epi8(block, _mm_set1_epi8('\\'))),
                   _mm_cmplt_epi8(block, _mm_set1_epi8(0x20)));
  return static_cast<unsigned>(_mm_movemask_epi8(hits));
}
#endif

// The search on from `p`, 16 bytes into a string: long strings (a prompt, an answer) at the widest
// width the CPU has, behind one call. The 16 bytes before `p` belong to the text, so its last
// bytes are read as a whole block that ends at `end`, the bytes already seen shifted out.
const char* next_special_long(const char* p, const char* end);

// Each width of next_special_long, for its test: 16 bytes at a time, and 32 where the CPU has
// AVX2 (next_special_has_wide(); the 16-byte search where it has not).
const char* next_special_long_narrow(const char* p, const char* end);
bool next_special_has_wide();
const char* next_special_long_wide(const char* p, const char* end);

// Where the next byte a string cannot simply continue with is: a quote, a backslash, a control
// byte (the parser's to judge) or a byte outside ASCII (the start of a UTF-8 sequence), or `end`.
// Most strings are names and short values, found here in one block without a call.
inline const char* next_special(const char* p, const char* end) {
#ifdef __SSE2__
  if (end - p >= 16) {
    if (const unsigned mask = special_bytes_16(p); mask != 0) {
      return p + __builtin_ctz(mask);
    }
    return next_special_long(p + 16, end);
  }
#endif
  for (; p < end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) {
      break;
    }
  }
  return p;
}

// The character a two-character escape stands for, or 0 for one the fast path leaves alone.
inline char unescaped(char c) {
  switch (c) {
    case '"':
    case '\\':
    case '/':
      return c;
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    default:
      return 0;
  }
}

template <class Handler>
class Reader {
 public:
  Reader(std::string_view text, Handler& handler)
      : p_(text.data()), end_(text.data() + text.size()), handler_(handler) {}

  bool document() {
    if (!handler_.on_document_begin(ec_)) {
      return false;
    }
    skip_blanks();
    if (!value(0)) {
      return false;
    }
    skip_blanks();
    return p_ == end_ && handler_.on_document_end(ec_);
  }

 private:
  void skip_blanks() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) {
      ++p_;
    }
  }

  bool next_is(char c) {
    if (p_ != end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }

  bool value(int depth) {
    if (p_ == end_) {
      return false;
    }
    switch (*p_) {
      case '{':
        return object(depth + 1);
      case '[':
        return array(depth + 1);
      case '"':
        ++p_;
        return string(false);
      case 't':
        return literal("true") && handler_.on_bool(true, ec_);
      case 'f':
        return literal("false") && handler_.on_bool(false, ec_);
      case 'n':
        return literal("null") && handler_.on_null(ec_);
      default:
        return number();
    }
  }

  bool object(int depth) {
    ++p_;
    if (depth > kMaxDepth || !handler_.on_object_begin(ec_)) {
      return false;
    }
    skip_blanks();
    std::size_t members = 0;
    if (!next_is('}')) {
      do {
        skip_blanks();
        if (!next_is('"') || !string(true)) {
          return false;
        }
        skip_blanks();
        if (!next_is(':')) {
          return false;
        }
        skip_blanks();
        if (!value(depth)) {
          return false;
        }
        ++members;
        skip_blanks();
      } while (next_is(','));
      if (!next_is('}')) {
        return false;
      }
    }
    return handler_.on_object_end(members, ec_);
  }

  bool array(int depth) {
    ++p_;
    if (depth > kMaxDepth || !handler_.on_array_begin(ec_)) {
      return false;
    }
    skip_blanks();
    std::size_t elements = 0;
    if (!next_is(']')) {
      do {
        skip_blanks();
        if (!value(depth)) {
          return false;
        }
        ++elements;
        skip_blanks();
      } while (next_is(','));
      if (!next_is(']')) {
        return false;
      }
    }
    return handler_.on_array_end(elements, ec_);
  }

  // After the opening quote. A string without escapes is one event; one with escapes is given in
  // parts (the text between escapes, each escaped character), as the parser may also split it.
  bool string(bool key) {
    std::size_t size = 0;
    for (const char* from = p_;;) {
      p_ = next_special(p_, end_);
      if (p_ == end_) {
        return false;
      }
      if (static_cast<unsigned char>(*p_) >= 0x80) {
        const std::size_t length = utf8_sequence(p_, end_);
        if (length == 0) {
          return false;
        }
        p_ += length;
        continue;
      }
      const boost::json::string_view text(from, static_cast<std::size_t>(p_ - from));
      size += text.size();
      if (*p_ == '"') {
        ++p_;
        return key ? handler_.on_key(text, size, ec_) : handler_.on_string(text, size, ec_);
      }
      if (*p_ != '\\' || end_ - p_ < 2) {
        return false;
      }
      const char c = unescaped(p_[1]);
      if (c == 0 || !part(key, text, size)) {
        return false;
      }
      ++size;
      if (!part(key, boost::json::string_view(&c, 1), size)) {
        return false;
      }
      p_ += 2;
      from = p_;
    }
  }

  bool part(bool key, boost::json::string_view text, std::size_t size) {
    if (text.empty()) {
      return true;
    }
    return key ? handler_.on_key_part(text, size, ec_) : handler_.on_string_part(text, size, ec_);
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  bool number() {
    const char* const start = p_;
    const bool negative = next_is('-');
    const char* const digits = p_;
    if (next_is('0')) {
      if (p_ != end_ && is_digit(*p_)) {
        return false;  // a leading zero
      }
    } else {
      skip_digits();
      if (p_ == digits) {
        return false;
      }
    }
    const char* const integer_end = p_;
    const char* fraction_end = p_;
    if (next_is('.')) {
      skip_digits();
      if (p_ == integer_end + 1) {
        return false;
      }
      fraction_end = p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      return false;  // exponents, and their limits, are the parser's
    }
    const boost::json::string_view raw(start, static_cast<std::size_t>(p_ - start));
    const std::ptrdiff_t fraction_digits = fraction_end == integer_end ? 0 : fraction_end - integer_end - 1;
    if ((integer_end - digits) + fraction_digits > (fraction_digits > 0 ? kMaxFractionDigits : kMaxIntegerDigits) ||
        (negative && fraction_digits == 0 && integer_end - digits == 1 && *digits == '0')) {
      return false;
    }
    std::int64_t mantissa = 0;
    for (const char* d = digits; d != fraction_end; ++d) {
      if (*d != '.') {
        mantissa = mantissa * 10 + (*d - '0');
      }
    }
    if (fraction_digits == 0) {
      return handler_.on_int64(negative ? -mantissa : mantissa, raw, ec_);
    }
    // Both operands are exact, so the quotient is the correctly rounded value, which is also what
    // basic_parser computes for these numbers (the digits as an integer over a power of ten).
    const double magnitude = static_cast<double>(mantissa) / kPowersOfTen[fraction_digits];
    return handler_.on_double(negative ? -magnitude : magnitude, raw, ec_);
  }

  void skip_digits() {
    while (p_ != end_ && is_digit(*p_)) {
      ++p_;
    }
  }

  const char* p_;
  const char* const end_;
  Handler& handler_;
  boost::system::error_code ec_;
};

}  // namespace json_fast_path_detail

// True when `text` is one JSON document of the common kind above and `handler` took every event
// of it; false when the fast path declined (the handler may then hold part of the events: read
// again with a fresh one).
template <class Handler>
bool read_common_json(std::string_view text, Handler& handler) {
  return json_fast_path_detail::Reader<Handler>(text, handler).document();
}

}  // namespace infergate::openai
