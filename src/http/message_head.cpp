#include "http/message_head.hpp"

#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <array>
#include <cstdint>

#include "core/trim.hpp"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace infergate::http {

namespace bhttp = boost::beast::http;
using boost::system::error_code;

namespace {

// RFC 9110 tchar: the characters of methods, field names and transfer codings.
constexpr std::array<bool, 256> kToken = [] {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c) {
    t[c] = true;
  }
  for (int c = 'a'; c <= 'z'; ++c) {
    t[c] = true;
    t[c - 'a' + 'A'] = true;
  }
  for (const char c : std::string_view("!#$%&'*+-.^_`|~")) {
    t[static_cast<unsigned char>(c)] = true;
  }
  return t;
}();

// Field values and reason phrases: HTAB, SP, visible characters and obs-text; no controls.
constexpr std::array<bool, 256> kText = [] {
  std::array<bool, 256> t{};
  t['\t'] = true;
  for (int c = 0x20; c < 256; ++c) {
    t[c] = c != 0x7f;
  }
  return t;
}();

bool all_of(std::string_view s, const std::array<bool, 256>& table) {
  for (const char c : s) {
    if (!table[static_cast<unsigned char>(c)]) {
      return false;
    }
  }
  return true;
}

// Calls `f` with each element of a comma-separated list, trimmed; empty elements are skipped.
template <class F>
void for_each_element(std::string_view list, F f) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view element = trim_blanks(list.substr(0, comma));
    if (!element.empty()) {
      f(element);
    }
    if (comma == std::string_view::npos) {
      break;
    }
    list.remove_prefix(comma + 1);
  }
}

// "HTTP/1.0" or "HTTP/1.1"; -1 for anything else.
int minor_version(std::string_view version) {
  if (version.size() == 8 && version.starts_with("HTTP/1.") && (version[7] == '0' || version[7] == '1')) {
    return version[7] - '0';
  }
  return -1;
}

struct Framing {
  bool has_length = false;
  bool chunked = false;
  bool other_coding = false;
};

#ifdef __SSE2__
// Where the first byte at or after `from` lies that `flags` marks (flags(p) sets bit j for byte j
// of the 16 at p), searched 16 bytes at a time; the size of `s` when there is none. The last bytes
// are read as the last whole block of `s`, the bytes already passed shifted out, so nothing past
// it is read (a head's last field ends within 16 bytes of its end); an `s` shorter than a block is
// left to `byte_by_byte(from)`.
template <class Flags, class Bytes>
std::size_t first_flagged(std::string_view s, std::size_t from, Flags flags, Bytes byte_by_byte) {
  for (; from + 16 <= s.size(); from += 16) {
    if (const unsigned mask = flags(s.data() + from); mask != 0) {
      return from + static_cast<std::size_t>(__builtin_ctz(mask));
    }
  }
  if (from >= s.size()) {
    return s.size();
  }
  if (s.size() < 16) {
    return byte_by_byte(from);
  }
  const std::size_t last = s.size() - 16;
  const unsigned mask = flags(s.data() + last) >> (from - last);
  return mask != 0 ? from + static_cast<std::size_t>(__builtin_ctz(mask)) : s.size();
}
#endif

// Where the first byte at or after `from` is that may not stand in a field value (a control
// character other than HTAB, or DEL), or the size of `s`. A value's end, its CR, is the first such
// byte; the heads of every request and response are searched 16 bytes at a time where the machine
// can, not byte by byte through the table.
std::size_t end_of_text(std::string_view s, std::size_t from) {
  const auto by_table = [s](std::size_t at) {
    while (at < s.size() && kText[static_cast<unsigned char>(s[at])]) {
      ++at;
    }
    return at;
  };
#ifdef __SSE2__
  const auto stops = [](const char* p) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Unsigned x <= 0x1f is max(x, 0x1f) == 0x1f.
    const __m128i control_max = _mm_set1_epi8(0x1f);
    const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(block, control_max), control_max);
    return static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_andnot_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8('\t')), control),
                                       _mm_cmpeq_epi8(block, _mm_set1_epi8(0x7f)))));
  };
  return first_flagged(s, from, stops, by_table);
#else
  return by_table(from);
#endif
}

// Where the field name at the start of `s` ends: the first byte that is not a token's, or the
// size of `s`. Names are letters, digits and hyphens nearly always: those are passed over 16 bytes
// at a time, and the table decides from the first other byte on.
std::size_t end_of_name(std::string_view s) {
  const auto by_table = [s](std::size_t at) {
    while (at < s.size() && kToken[static_cast<unsigned char>(s[at])]) {
      ++at;
    }
    return at;
  };
#ifdef __SSE2__
  // The bytes that are not letters, digits or hyphens.
  const auto unusual = [](const char* p) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Signed comparisons: the bytes from 0x80 up are negative, below every range here.
    const __m128i lower = _mm_or_si128(block, _mm_set1_epi8(0x20));
    const __m128i letter =
        _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)), _mm_cmplt_epi8(lower, _mm_set1_epi8('z' + 1)));
    const __m128i digit =
        _mm_and_si128(_mm_cmpgt_epi8(block, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(block, _mm_set1_epi8('9' + 1)));
    const __m128i usual = _mm_or_si128(_mm_or_si128(letter, digit), _mm_cmpeq_epi8(block, _mm_set1_epi8('-')));
    return ~static_cast<unsigned>(_mm_movemask_epi8(usual)) & 0xffffU;
  };
  return by_table(first_flagged(s, 0, unusual, [](std::size_t at) { return at; }));
#else
  return by_table(0);
#endif
}

// Whether the token or field value `name` is `lower` (lower-case letters, digits and hyphens) in
// any case. Setting a byte's 0x20 bit folds the case of a letter and changes nothing else that
// could match: the bytes it would map onto a digit or a hyphen are controls other than HTAB, which
// neither tokens nor values hold. So names are compared eight bytes at a time.
template <std::size_t N>
bool token_is(std::string_view name, const char (&lower)[N]) {
  constexpr std::size_t n = N - 1;
  if (name.size() != n) {
    return false;
  }
  const auto word_differs = [&](std::size_t at) {
    return (load_word<std::uint64_t>(name.data() + at) | 0x2020202020202020U) != load_word<std::uint64_t>(lower + at);
  };
  if constexpr (n >= 8) {
    for (std::size_t i = 0; i + 8 <= n; i += 8) {
      if (word_differs(i)) {
        return false;
      }
    }
    return !word_differs(n - 8);  // the last eight bytes, overlapping the words before
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      if ((static_cast<unsigned char>(name[i]) | 0x20U) != static_cast<unsigned char>(lower[i])) {
        return false;
      }
    }
    return true;
  }
}

// A Content-Length value (1*DIGIT) of at most 2^62, into `length`. By hand: std::from_chars takes
// twice the instructions for the three or four digits of nearly every body.
bool read_length(std::string_view value, std::uint64_t& length) {
  if (value.empty()) {
    return false;
  }
  std::size_t zeros = 0;
  while (zeros < value.size() && value[zeros] == '0') {
    ++zeros;
  }
  value.remove_prefix(zeros);
  if (value.size() > 19) {  // 19 digits cannot wrap; more are past the bound anyway
    return false;
  }
  std::uint64_t n = 0;
  for (const char c : value) {
    const unsigned digit = static_cast<unsigned char>(c) - unsigned{'0'};
    if (digit > 9) {
      return false;
    }
    n = n * 10 + digit;
  }
  if (n > (std::uint64_t{1} << 62)) {
    return false;
  }
  length = n;
  return true;
}

// The fields that frame a message or govern its connection.
constexpr char kContentLength[] = "content-length";
constexpr char kTransferEncoding[] = "transfer-encoding";
constexpr char kConnection[] = "connection";
constexpr char kExpect[] = "expect";

// The first letter (lower case) of the framing field of each name size, or 0 for none.
constexpr std::array<char, 32> kFramingInitial = [] {
  std::array<char, 32> t{};
  for (const std::string_view name : {kContentLength, kTransferEncoding, kConnection, kExpect}) {
    t[name.size()] = name[0];
  }
  return t;
}();

// Whether a field name could be one of them, by its size and first letter: the others (Server and
// Accept have an Expect's size) need no closer look.
bool may_frame(std::string_view name) {
  return name.size() < kFramingInitial.size() &&
         kFramingInitial[name.size()] == static_cast<char>(static_cast<unsigned char>(name[0]) | 0x20U);
}

// What a field says of the message's framing or the connection, into `out` and `framing`; any
// other field is left alone.
[[gnu::noinline]] error_code read_framing_field(std::string_view name, std::string_view value, MessageHead& out,
                                                Framing& framing) {
  if (token_is(name, kContentLength)) {
    std::uint64_t length = 0;
    if (!read_length(value, length)) {
      return bhttp::error::bad_content_length;
    }
    if (framing.has_length && length != out.content_length) {
      return bhttp::error::multiple_content_length;
    }
    framing.has_length = true;
    out.content_length = length;
  } else if (token_is(name, kTransferEncoding)) {
    bool valid = true;
    for_each_element(value, [&](std::string_view coding) {
      valid = valid && is_token(coding) && !framing.chunked;  // nothing may follow chunked
      if (iequals(coding, "chunked")) {
        framing.chunked = true;
      } else {
        framing.other_coding = true;
      }
    });
    if (!valid) {
      return bhttp::error::bad_transfer_encoding;
    }
  } else if (token_is(name, kConnection)) {
    if (token_is(value, "keep-alive") && out.minor_version >= 1) {
      return {};  // what HTTP/1.1 does anyway, and what nearly every upstream sends
    }
    for_each_element(value, [&](std::string_view option) {
      if (iequals(option, "close")) {
        out.keep_alive = false;
      } else if (out.minor_version == 0 && iequals(option, "keep-alive")) {
        out.keep_alive = true;
      }
    });
  } else if (token_is(name, kExpect)) {
    out.expect_continue = iequals(value, "100-continue");
  }
  return {};
}

// Reads the header fields after the start line, through the empty line that ends the head, and
// sets `used` to their size with that line. `rest` may hold more (a body, the next message) or
// less: need_more when it ends before the empty line. Each line is read in one pass: its name up
// to the first byte that is not a token's, which must be the colon, then its value up to the
// first control character, which must be the CR of its CRLF.
error_code parse_fields(std::string_view rest, MessageHead& out, Framing& framing, std::size_t& used) {
  out.keep_alive = out.minor_version >= 1;
  const std::size_t size = rest.size();
  for (;;) {
    if (rest.starts_with("\r\n")) {
      used = size - rest.size() + 2;
      return {};
    }
    if (rest.empty() || rest == "\r") {
      return bhttp::error::need_more;
    }
    if (rest.front() == ' ' || rest.front() == '\t') {
      return bhttp::error::bad_obs_fold;
    }
    const std::size_t colon = end_of_name(rest);
    if (colon == rest.size()) {
      return bhttp::error::need_more;
    }
    if (colon == 0 || rest[colon] != ':') {
      return bhttp::error::bad_field;
    }
    const std::size_t eol = end_of_text(rest, colon + 1);
    if (eol == rest.size() || (rest[eol] == '\r' && eol + 1 == rest.size())) {
      return bhttp::error::need_more;
    }
    if (rest[eol] != '\r' || rest[eol + 1] != '\n') {
      return bhttp::error::bad_value;
    }
    const std::string_view name = rest.substr(0, colon);
    const std::string_view value = trim_blanks(rest.substr(colon + 1, eol - colon - 1));
    rest.remove_prefix(eol + 2);
    out.fields.push_back(Header{name, value});
    // The closer look at the few fields that frame the message is kept out of this loop's code.
    if (may_frame(name)) {
      if (const error_code ec = read_framing_field(name, value, out, framing)) {
        return ec;
      }
    }
  }
}

// The path and query of an absolute-form target ("http://host:port/path?query"), which a server
// must accept (RFC 9112 section 3.2.2) and a client sends when it takes the gateway for a proxy.
// "" for any other scheme or form, and for one without a path: the target is a view of the
// request line, which has no "/" to stand for it.
std::string_view origin_form(std::string_view target) {
  const std::size_t scheme_end = target.find("://");
  if (scheme_end == std::string_view::npos ||
      !(iequals(target.substr(0, scheme_end), "http") || iequals(target.substr(0, scheme_end), "https"))) {
    return {};
  }
  const std::size_t path = target.find('/', scheme_end + 3);
  return path == std::string_view::npos ? std::string_view{} : target.substr(path);
}

error_code read_request_head(std::string_view data, MessageHead& out, std::size_t& head_size) {
  out.clear();
  const std::size_t eol = data.find("\r\n");
  if (eol == std::string_view::npos) {
    return bhttp::error::need_more;
  }
  const std::string_view line = data.substr(0, eol);
  // The methods of nearly every request here are known tokens: no look at each byte.
  std::size_t sp1 = 0;
  if (line.starts_with("POST ")) {
    sp1 = 4;
  } else if (line.starts_with("GET ")) {
    sp1 = 3;
  } else {
    sp1 = line.find(' ');
    if (sp1 == std::string_view::npos || !is_token(line.substr(0, sp1))) {
      return bhttp::error::bad_method;
    }
  }
  const std::size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) {
    return bhttp::error::bad_target;
  }
  // Visible ASCII only, as RFC 9112 has it (other characters are percent-encoded): the target
  // goes into logs and error messages as text, which must be valid UTF-8.
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (target.empty() || !std::all_of(target.begin(), target.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u > 0x20 && u < 0x7f;
      })) {
    return bhttp::error::bad_target;
  }
  out.minor_version = minor_version(line.substr(sp2 + 1));
  if (out.minor_version < 0) {
    return bhttp::error::bad_version;
  }
  out.method = line.substr(0, sp1);
  out.target = target[0] == '/' || target == "*" ? target : origin_form(target);
  if (out.target.empty()) {
    return bhttp::error::bad_target;
  }
  Framing framing;
  std::size_t used = 0;
  if (const error_code ec = parse_fields(data.substr(eol + 2), out, framing, used)) {
    return ec;
  }
  head_size = eol + 2 + used;
  // A request with both, or with a coding we cannot undo, could be framed differently by another
  // server on its way: refuse it rather than guess (RFC 9112 section 6.3).
  if (framing.other_coding || (framing.chunked && framing.has_length)) {
    return bhttp::error::bad_transfer_encoding;
  }
  if (framing.chunked) {
    out.framing = BodyFraming::chunked;
  } else if (out.content_length > 0) {
    out.framing = BodyFraming::length;
  }
  return {};
}

error_code read_response_head(std::string_view data, bool head_request, MessageHead& out, std::size_t& head_size) {
  out.clear();
  const std::size_t eol = data.find("\r\n");
  if (eol == std::string_view::npos) {
    return bhttp::error::need_more;
  }
  const std::string_view line = data.substr(0, eol);
  out.minor_version = minor_version(line.substr(0, 8));
  if (out.minor_version < 0 || line.size() < 12 || line[8] != ' ') {
    return bhttp::error::bad_version;
  }
  // Three digits, read by hand: std::from_chars is a call and a loop for them.
  const auto digit = [&](std::size_t at) { return static_cast<unsigned>(static_cast<unsigned char>(line[at])) - '0'; };
  const unsigned hundreds = digit(9);
  const unsigned tens = digit(10);
  const unsigned ones = digit(11);
  if (hundreds > 9 || tens > 9 || ones > 9 || hundreds == 0 || (line.size() > 12 && line[12] != ' ')) {
    return bhttp::error::bad_status;
  }
  out.status = static_cast<int>(hundreds * 100 + tens * 10 + ones);
  if (!all_of(line.substr(12), kText)) {
    return bhttp::error::bad_reason;
  }
  Framing framing;
  std::size_t used = 0;
  if (const error_code failed = parse_fields(data.substr(eol + 2), out, framing, used)) {
    return failed;
  }
  head_size = eol + 2 + used;
  if (framing.other_coding) {
    return bhttp::error::bad_transfer_encoding;
  }
  if (head_request || out.status < 200 || out.status == 204 || out.status == 304) {
    out.framing = BodyFraming::none;
  } else if (framing.chunked) {
    out.framing = BodyFraming::chunked;
  } else if (framing.has_length) {
    out.framing = out.content_length > 0 ? BodyFraming::length : BodyFraming::none;
  } else {
    out.framing = BodyFraming::until_close;
    out.keep_alive = false;
  }
  return {};
}

// Whether a line of the unfinished head at the start of `data` ends, at `from` or after, in an LF
// without its CR. Such a head can never end (its empty line would have to be a CRLF), and a peer
// that ends lines with LF alone would otherwise be waited on until a timeout.
bool bare_line_feed(std::string_view data, std::size_t from) {
  for (std::size_t lf = data.find('\n', from); lf != std::string_view::npos; lf = data.find('\n', lf + 1)) {
    if (lf == 0 || data[lf - 1] != '\r') {
      return true;
    }
  }
  return false;
}

// A head that `read` (read_request_head or read_response_head, bound to their arguments) finds
// whole in `data`: read where it lies the first time, as it nearly always arrives. Once a piece
// fell short, the head is searched for its end first, so that its bytes are read once however
// many pieces bring them.
template <class Read>
std::size_t take_head(std::string_view data, std::size_t& scanned, error_code& ec, Read read) {
  if (data.empty()) {
    return 0;
  }
  const bool searched = scanned != 0;
  std::string_view head = data;
  if (searched) {
    const std::size_t from = scanned;
    const std::size_t end = find_head_end(data, scanned);
    if (end == std::string_view::npos) {
      if (bare_line_feed(data, from)) {
        ec = bhttp::error::bad_line_ending;
      }
      return 0;
    }
    head = data.substr(0, end);
  }
  std::size_t size = 0;
  const error_code failed = read(head, size);
  if (!failed) {
    return size;  // the found end is the read's: both are the first empty line
  }
  if (failed != bhttp::error::need_more) {
    ec = failed;
  } else if (searched || find_head_end(data, scanned) != std::string_view::npos || bare_line_feed(data, 0)) {
    ec = bhttp::error::bad_line_ending;  // the head ended yet reads as unfinished, or never can end
  }
  return 0;
}

// A whole head's reading: it must end where `head` does.
error_code whole_head(error_code ec, std::size_t size, std::string_view head) {
  return ec || size == head.size() ? ec : error_code(bhttp::error::bad_line_ending);
}

}  // namespace

bool is_token(std::string_view s) {
  return !s.empty() && all_of(s, kToken);
}

bool is_field_value(std::string_view s) {
  return all_of(s, kText);
}

std::string_view MessageHead::header(std::string_view name) const {
  for (const Header& h : fields) {
    if (iequals(h.name, name)) {
      return h.value;
    }
  }
  return {};
}

void MessageHead::clear() {
  fields.clear();  // first: the assignment then moves no fields, and keeps any storage they grew
  *this = MessageHead{};
}

void MessageHead::move_views(const char* from, const char* to, std::size_t size) {
  const auto old_base = reinterpret_cast<std::uintptr_t>(from);
  const auto move = [&](std::string_view& view) {
    // Compared as integers: the old text may be gone, and pointers into it may not be compared.
    const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(view.data()) - old_base;
    if (offset <= size) {
      view = std::string_view(to + offset, view.size());
    }
  };
  move(method);
  move(target);
  for (Header& h : fields) {
    move(h.name);
    move(h.value);
  }
}

std::size_t find_head_end(std::string_view data, std::size_t& scanned) {
  const std::size_t from = scanned > 3 ? scanned - 3 : 0;  // the empty line may straddle two reads
  const std::size_t at = data.find("\r\n\r\n", from);
  if (at == std::string_view::npos) {
    scanned = data.size();
    return std::string_view::npos;
  }
  return at + 4;
}

std::size_t take_request_head(std::string_view data, std::size_t& scanned, MessageHead& out, error_code& ec) {
  return take_head(data, scanned, ec,
                   [&out](std::string_view text, std::size_t& size) { return read_request_head(text, out, size); });
}

std::size_t take_response_head(std::string_view data, std::size_t& scanned, bool head_request, MessageHead& out,
                               error_code& ec) {
  return take_head(data, scanned, ec, [&out, head_request](std::string_view text, std::size_t& size) {
    return read_response_head(text, head_request, out, size);
  });
}

error_code parse_request_head(std::string_view head, MessageHead& out) {
  std::size_t scanned = 0;
  error_code ec;
  const std::size_t size = take_request_head(head, scanned, out, ec);
  return whole_head(ec, size, head);
}

error_code parse_response_head(std::string_view head, bool head_request, MessageHead& out) {
  std::size_t scanned = 0;
  error_code ec;
  const std::size_t size = take_response_head(head, scanned, head_request, out, ec);
  return whole_head(ec, size, head);
}

}  // namespace infergate::http
