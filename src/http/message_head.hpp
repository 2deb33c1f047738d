#pragma once
// HTTP/1.1 message heads (RFC 9112), parsed from a contiguous buffer into views of it. Strict
// where leniency would let a request be smuggled past another proxy: CRLF line ends only, no
// obsolete line folding, no control characters in a field value, one Content-Length, never beside
// Transfer-Encoding in a request. Errors are Beast's http::error codes, which the rest of the
// program already tells apart.
#include <boost/container/small_vector.hpp>
#include <boost/system/error_code.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/byte_vector.hpp"
#include "http/header.hpp"

namespace infergate::http {

// How the body after a head is delimited.
enum class BodyFraming { none, length, chunked, until_close };

struct MessageHead {
  std::string_view method;  // requests
  std::string_view target;  // requests
  int status = 0;           // responses
  int minor_version = 1;    // HTTP/1.<minor>
  boost::container::small_vector<Header, 16> fields;
  BodyFraming framing = BodyFraming::none;
  std::uint64_t content_length = 0;
  bool keep_alive = true;
  bool expect_continue = false;  // a request's "Expect: 100-continue"

  // As a new head. Assigning MessageHead{} to a head with fields moved the new head's empty
  // inline storage over them, a hundred instructions on every request; emptied first, it does not.
  void clear();

  // Value of the named field (case-insensitive), "" when absent.
  [[nodiscard]] std::string_view header(std::string_view name) const;

  // Points the views into the `size` bytes of text at `from` at the same bytes copied to `to`
  // (a read buffer that moved its data): a few additions, where parsing the head again costs
  // a thousand instructions and more. `from` may be freed memory: only its address is used.
  void move_views(const char* from, const char* to, std::size_t size);
};

// Where the head at the start of `data` ends (just past its empty line), or npos while it is
// incomplete. `scanned` carries the search from one call to the next, so that a head arriving in
// many pieces is searched once; start it at 0 for each head.
std::size_t find_head_end(std::string_view data, std::size_t& scanned);

// The head at the start of `data` (which may also hold what follows it: a body, the next message),
// parsed into `out` once all of it has arrived: its size, with its empty line, or 0 while more is
// needed or when it is wrong (`ec`). `scanned` is find_head_end's, 0 for each new head. The first
// call reads the head where it lies, in one pass, and refuses a part that is wrong already; after
// a call that fell short the head is searched for its end first (find_head_end), so a head that
// trickles in is not parsed again for each piece. The views in `out` point into `data`.
std::size_t take_request_head(std::string_view data, std::size_t& scanned, MessageHead& out,
                              boost::system::error_code& ec);
// A response to HEAD has no body, whatever its fields say.
std::size_t take_response_head(std::string_view data, std::size_t& scanned, bool head_request, MessageHead& out,
                               boost::system::error_code& ec);

// Parse a complete head, up to and including its empty line (and nothing after it).
boost::system::error_code parse_request_head(std::string_view head, MessageHead& out);
boost::system::error_code parse_response_head(std::string_view head, bool head_request, MessageHead& out);

// RFC 9110 §5.6.2 token (a method, a field name): one or more of letters, digits and
// !#$%&'*+-.^_`|~.
[[nodiscard]] bool is_token(std::string_view s);
// RFC 9110 §5.5 field value: tabs, spaces, visible characters and obs-text; no controls.
[[nodiscard]] bool is_field_value(std::string_view s);

// Case-insensitive comparison of ASCII names: only A-Z and a-z fold, whatever the locale (header
// names are ASCII tokens). Eight bytes at a time: bytes may differ only in their 0x20 bit, and
// only where that bit makes a letter's case. Inline, where strncasecmp was a call through the
// locale per field, and byte by byte it was a loop of a dozen instructions a byte.
namespace iequals_detail {

// Whether the words `a` and `b` hold the same bytes but for the case of letters.
inline bool words_iequal(std::uint64_t a, std::uint64_t b) {
  constexpr std::uint64_t kOnes = 0x0101010101010101U;
  const std::uint64_t differ = a ^ b;
  if (differ == 0) {
    return true;
  }
  if ((differ & ~(0x20 * kOnes)) != 0) {
    return false;
  }
  // Each byte's lower-case form, its top bit set where it lies in 'a'..'z': the sums of a byte
  // below 0x80 and a constant below 0x20 cannot carry into the next byte.
  const std::uint64_t lower = a | (0x20 * kOnes);
  const std::uint64_t low7 = lower & (0x7f * kOnes);
  const std::uint64_t from_a = low7 + (0x80 - 'a') * kOnes;
  const std::uint64_t past_z = low7 + (0x80 - 'z' - 1) * kOnes;
  const std::uint64_t letter = from_a & ~past_z & ~lower & (0x80 * kOnes);
  // The bytes that differ (in their 0x20 bit, shifted to the top bit) must all be letters.
  return ((differ << 2) & ~letter) == 0;
}

}  // namespace iequals_detail

inline bool iequals(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  if (n != b.size()) {
    return false;
  }
  if (n >= 8) {
    for (std::size_t i = 0; i + 8 < n; i += 8) {
      if (!iequals_detail::words_iequal(load_word<std::uint64_t>(a.data() + i),
                                        load_word<std::uint64_t>(b.data() + i))) {
        return false;
      }
    }
    // The last eight bytes, overlapping the words before.
    return iequals_detail::words_iequal(load_word<std::uint64_t>(a.data() + n - 8),
                                        load_word<std::uint64_t>(b.data() + n - 8));
  }
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned x = static_cast<unsigned char>(a[i]);
    const unsigned y = static_cast<unsigned char>(b[i]);
    if (x != y && ((x | 0x20U) != (y | 0x20U) || (x | 0x20U) - 'a' > 'z' - 'a')) {
      return false;
    }
  }
  return true;
}

}  // namespace infergate::http
