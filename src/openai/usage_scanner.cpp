#include "openai/usage_scanner.hpp"

#include <boost/json.hpp>
#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <array>
#include <cstring>

namespace infergate::openai {

namespace json = boost::json;

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

// Reads prompt_tokens and completion_tokens from a usage object (`nested`: from the object under
// "usage" in the object given) in one pass of the validating parser, without building a DOM. A
// member that is not an integer counts 0, as a missing one does.
class UsageHandler {
 public:
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);
  using error_code = boost::system::error_code;

  explicit UsageHandler(bool nested) : target_depth_(nested ? 2 : 1) {}

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_object_begin(error_code&) {
    if (depth_ == 0) {
      root_object_ = true;
    }
    if (target_depth_ == 2 && depth_ == 1 && next_ == Next::usage) {
      usage_is_object_ = true;  // the last "usage" member decides, as in a DOM
      in_usage_object_ = true;
      prompt_ = completion_ = 0;
    }
    ++depth_;
    next_ = Next::other;
    return true;
  }
  bool on_object_end(std::size_t, error_code&) { return close(); }
  bool on_array_begin(error_code&) {
    member_value();
    ++depth_;
    next_ = Next::other;
    return true;
  }
  bool on_array_end(std::size_t, error_code&) { return close(); }
  bool on_key_part(json::string_view part, std::size_t, error_code&) {
    const std::size_t n = std::min(part.size(), kKeyBytes - key_size_);
    std::memcpy(key_ + key_size_, part.data(), n);
    key_size_ += n;
    return true;
  }
  bool on_key(json::string_view part, std::size_t n, error_code& ec) {
    on_key_part(part, n, ec);
    next_ = Next::other;
    const std::string_view key(key_, key_size_);
    if (key_size_ < kKeyBytes) {
      if (depth_ == target_depth_ && in_target()) {
        next_ = key == "prompt_tokens" ? Next::prompt : key == "completion_tokens" ? Next::completion : Next::other;
      } else if (target_depth_ == 2 && depth_ == 1 && key == "usage") {
        next_ = Next::usage;
      }
    }
    key_size_ = 0;
    return true;
  }
  bool on_string_part(json::string_view, std::size_t, error_code&) { return true; }
  bool on_string(json::string_view, std::size_t, error_code&) { return scalar(0, false); }
  bool on_number_part(json::string_view, error_code&) { return true; }
  bool on_int64(std::int64_t v, json::string_view, error_code&) { return scalar(v, true); }
  bool on_uint64(std::uint64_t v, json::string_view, error_code&) { return scalar(static_cast<std::int64_t>(v), true); }
  bool on_double(double, json::string_view, error_code&) { return scalar(0, false); }
  bool on_bool(bool, error_code&) { return scalar(0, false); }
  bool on_null(error_code&) { return scalar(0, false); }
  bool on_comment_part(json::string_view, error_code&) { return true; }
  bool on_comment(json::string_view, error_code&) { return true; }

  [[nodiscard]] std::optional<Usage> result() const {
    if (!root_object_ || (target_depth_ == 2 && !usage_is_object_)) {
      return std::nullopt;
    }
    return Usage{prompt_, completion_};
  }

 private:
  enum class Next : std::uint8_t { other, usage, prompt, completion };
  static constexpr std::size_t kKeyBytes = 24;  // longer names are of no interest

  [[nodiscard]] bool in_target() const { return target_depth_ == 1 || in_usage_object_; }

  bool close() {
    if (--depth_ == 1) {
      in_usage_object_ = false;
    }
    next_ = Next::other;
    return true;
  }

  // A value that is not an object ends what a "usage" member could be.
  void member_value() {
    if (target_depth_ == 2 && depth_ == 1 && next_ == Next::usage) {
      usage_is_object_ = false;
    }
  }

  bool scalar(std::int64_t value, bool integer) {
    member_value();
    if (next_ == Next::prompt) {
      prompt_ = integer ? value : 0;
    } else if (next_ == Next::completion) {
      completion_ = integer ? value : 0;
    }
    next_ = Next::other;
    return true;
  }

  int target_depth_;
  int depth_ = 0;
  bool root_object_ = false;
  bool usage_is_object_ = false;
  bool in_usage_object_ = false;
  Next next_ = Next::other;
  char key_[kKeyBytes] = {};  // a name's first bytes; a name this long is of no interest
  std::size_t key_size_ = 0;
  std::int64_t prompt_ = 0;
  std::int64_t completion_ = 0;
};

// Usage read from the captured text of a usage object, or of an object holding one under "usage".
std::optional<Usage> parse_usage(std::string_view text, bool nested) {
  json::basic_parser<UsageHandler> parser(json::parse_options{}, nested);
  boost::system::error_code ec;
  const std::size_t n = parser.write_some(false, text.data(), text.size(), ec);
  if (ec || n < text.size()) {
    return std::nullopt;
  }
  return parser.handler().result();
}

}  // namespace

// Strings are skipped with memchr, and nesting below the top level with a table: the state machine
// proper only sees the few bytes between the top-level members.
void UsageScanner::feed(std::string_view bytes) {
  const char* p = bytes.data();
  const char* const end = p + bytes.size();
  const char* captured = capturing_ != Member::other ? p : nullptr;
  while (p < end && state_ != State::done && state_ != State::not_object) {
    if (in_string_) {
      const char* from = p;
      p = skip_string(p, end);
      if (reading_key_) {
        const std::size_t length = static_cast<std::size_t>((in_string_ ? p : p - 1) - from);
        if (key_.size() + length <= kLongestName) {
          key_.append(from, length);
        } else {
          key_.assign(kLongestName + 1, '\\');  // longer than any name of interest
        }
        if (!in_string_) {
          reading_key_ = false;
          pending_ = key_ == "usage" ? Member::usage : key_ == "x_groq" ? Member::x_groq : Member::other;
        }
      }
      continue;
    }
    if (depth_ >= 2) {
      while (p < end && !kStructural[static_cast<unsigned char>(*p)]) {
        ++p;
      }
      if (p == end) {
        break;
      }
    }
    const Member before = capturing_;
    const char* at = p;
    on_char(*p++);
    if (before == Member::other && capturing_ != Member::other) {
      captured = at;
    } else if (before != Member::other && capturing_ == Member::other) {
      end_capture(before, captured, p);
      captured = nullptr;
    }
  }
  if (captured != nullptr && capturing_ != Member::other) {
    append_capture(capturing_, captured, p);
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
const char* UsageScanner::skip_string(const char* p, const char* end) {
  if (escaped_) {
    escaped_ = false;
    ++p;
  }
  while (p < end) {
    const auto* quote = static_cast<const char*>(std::memchr(p, '"', static_cast<std::size_t>(end - p)));
    const char* stop = quote != nullptr ? quote : end;
    const char* run = stop;
    while (run > p && run[-1] == '\\') {
      --run;
    }
    const bool odd = (stop - run) % 2 == 1;
    if (quote == nullptr) {
      escaped_ = odd;
      return end;
    }
    if (!odd) {
      in_string_ = false;
      return quote + 1;
    }
    p = quote + 1;  // an escaped quote: still inside the string
  }
  return p;
}

// One byte outside any string.
void UsageScanner::on_char(char c) {
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
      if (depth_ == 1 && expect_key_) {
        reading_key_ = true;
        expect_key_ = false;
        key_.clear();
      }
      return;
    case '{':
    case '[':
      if (depth_ == 1 && pending_ != Member::other && c == '{') {
        capturing_ = pending_;
        capture(capturing_) = Capture{};  // the last member of a name counts, as in a DOM
      }
      pending_ = Member::other;
      ++depth_;
      return;
    case '}':
    case ']':
      --depth_;
      if (depth_ == 1) {
        capturing_ = Member::other;
      } else if (depth_ == 0) {
        state_ = State::done;
      }
      return;
    case ',':
      if (depth_ == 1) {
        expect_key_ = true;
        pending_ = Member::other;
      }
      return;
    case ':':
      return;
    default:
      if (depth_ == 1 && !is_space(c)) {
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
