#include "openai/usage_scanner.hpp"

#include <boost/json.hpp>

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

std::int64_t int_member(const json::object& object, std::string_view key) {
  const auto* v = object.if_contains(key);
  if (v != nullptr && v->is_int64()) {
    return v->get_int64();
  }
  if (v != nullptr && v->is_uint64()) {
    return static_cast<std::int64_t>(v->get_uint64());
  }
  return 0;
}

std::optional<Usage> usage_from(const json::value& value) {
  if (!value.is_object()) {
    return std::nullopt;
  }
  const auto& u = value.get_object();
  return Usage{int_member(u, "prompt_tokens"), int_member(u, "completion_tokens")};
}

// Usage read from the captured text of a usage object, or of an object holding one under "usage".
std::optional<Usage> parse_usage(std::string_view text, bool nested) {
  unsigned char scratch[2048];  // a usage object parses without touching the heap
  json::monotonic_resource resource(scratch, sizeof(scratch));
  boost::system::error_code ec;
  const json::value value = json::parse(text, ec, &resource);
  if (ec || !value.is_object()) {
    return std::nullopt;
  }
  if (!nested) {
    return usage_from(value);
  }
  const auto* usage = value.get_object().if_contains("usage");
  return usage != nullptr ? usage_from(*usage) : std::nullopt;
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
      append_capture(before, captured, p);
      captured = nullptr;
    }
  }
  if (captured != nullptr && capturing_ != Member::other) {
    append_capture(capturing_, captured, p);
  }
}

void UsageScanner::append_capture(Member member, const char* from, const char* to) {
  std::string& text = member == Member::usage ? usage_text_ : groq_text_;
  text.append(from, std::min(static_cast<std::size_t>(to - from), kMaxCapture - std::min(kMaxCapture, text.size())));
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
        (capturing_ == Member::usage ? usage_text_ : groq_text_).clear();
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
  std::optional<Usage> usage;
  if (!usage_text_.empty()) {
    usage = parse_usage(usage_text_, false);
  }
  if (!usage && !groq_text_.empty()) {
    usage = parse_usage(groq_text_, true);
  }
  return usage;
}

}  // namespace infergate::openai
