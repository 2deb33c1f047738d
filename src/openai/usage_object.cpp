#include "openai/usage_object.hpp"

#include <boost/json.hpp>
#include <boost/json/basic_parser_impl.hpp>

#include <cstdint>
#include <cstring>

#include "openai/json_fast_path.hpp"
#include "openai/json_handler.hpp"

namespace infergate::openai {

namespace json = boost::json;

namespace {

enum class Count : std::uint8_t { other, prompt, completion };

// `key` is `name`, compared at a size known when compiled (so without a call to memcmp).
template <std::size_t N>
bool is(std::string_view key, const char (&name)[N]) {
  return key.size() == N - 1 && std::memcmp(key.data(), name, N - 1) == 0;
}

// The Chat Completions API's names, and the Responses API's (which Anthropic's API shares). Every
// member of every usage object passes here.
[[gnu::always_inline]] inline Count count_named(std::string_view key) {
  if (is(key, "prompt_tokens") || is(key, "input_tokens")) {
    return Count::prompt;
  }
  if (is(key, "completion_tokens") || is(key, "output_tokens")) {
    return Count::completion;
  }
  return Count::other;
}

// Reads prompt_tokens and completion_tokens from a usage object (`nested`: from the object under
// "usage" in the object given) in one pass of the validating parser, without building a DOM. A
// member that is not an integer counts 0, as a missing one does.
class UsageHandler : public JsonHandlerBase {
 public:
  explicit UsageHandler(bool nested) : target_depth_(nested ? 2 : 1) {}

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
  bool on_key(json::string_view part, std::size_t, error_code&) {
    const std::string_view key = member_name(part);
    next_ = Next::other;
    if (depth_ == target_depth_ && in_target()) {
      const Count count = count_named(key);
      next_ = count == Count::prompt ? Next::prompt : count == Count::completion ? Next::completion : Next::other;
    } else if (target_depth_ == 2 && depth_ == 1 && key == "usage") {
      next_ = Next::usage;
    }
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
  [[nodiscard]] std::optional<Usage> result() const {
    if (!root_object_ || (target_depth_ == 2 && !usage_is_object_)) {
      return std::nullopt;
    }
    return Usage{prompt_, completion_};
  }

 private:
  enum class Next : std::uint8_t { other, usage, prompt, completion };

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
  std::int64_t prompt_ = 0;
  std::int64_t completion_ = 0;
};

// read_simple_usage's pass. Each member name is compared where it lies; each value is checked as
// the JSON grammar has it, so that what is read is a JSON document (anything the grammar allows
// but this reader does not is declined, never guessed at).
class SimpleUsageReader {
 public:
  SimpleUsageReader(std::string_view text, bool nested)
      : p_(text.data()), end_(text.data() + text.size()), nested_(nested) {}

  SimpleUsage read() {
    skip_blanks();
    if (!object(nested_ ? Role::holder : Role::usage, 0)) {
      return {};
    }
    skip_blanks();
    if (p_ != end_) {
      return {};
    }
    if (nested_ && !usage_is_object_) {
      return {true, std::nullopt};
    }
    return {true, Usage{prompt_, completion_}};
  }

 private:
  // What an object is to the reading: the usage object, the object that holds one under "usage"
  // (nested), or any other.
  enum class Role { usage, holder, other };
  // Levels below the top an object may have here; deeper ones are declined.
  static constexpr int kMaxDepth = 4;

  static bool is_blank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

  void skip_blanks() {
    const char* p = p_;
    while (p != end_ && is_blank(*p)) {
      ++p;
    }
    p_ = p;
  }

  bool next_is(char c) {
    if (p_ != end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }

  // At `{`: the whole object, its members read as `role` says.
  bool object(Role role, int depth) {
    if (!next_is('{') || depth > kMaxDepth) {
      return false;
    }
    if (role == Role::usage) {
      prompt_ = completion_ = 0;  // the last usage object decides, as in a DOM
    }
    skip_blanks();
    if (next_is('}')) {
      return true;
    }
    for (;;) {
      std::string_view name;
      if (!string(name)) {
        return false;
      }
      skip_blanks();
      if (!next_is(':')) {
        return false;
      }
      skip_blanks();
      if (!member(role, name, depth)) {
        return false;
      }
      skip_blanks();
      if (next_is('}')) {
        return true;
      }
      if (!next_is(',')) {
        return false;
      }
      skip_blanks();
    }
  }

  bool member(Role role, std::string_view name, int depth) {
    if (p_ != end_ && *p_ == '{') {
      const bool usage = role == Role::holder && name == "usage";
      if (usage) {
        usage_is_object_ = true;
      }
      return object(usage ? Role::usage : Role::other, depth + 1);
    }
    std::optional<std::int64_t> integer;
    if (!scalar(integer)) {
      return false;
    }
    if (role == Role::usage) {
      const Count count = count_named(name);
      if (count == Count::prompt) {
        prompt_ = integer.value_or(0);
      } else if (count == Count::completion) {
        completion_ = integer.value_or(0);
      }
    } else if (role == Role::holder && name == "usage") {
      usage_is_object_ = false;
    }
    return true;
  }

  // At a quote: a string of ASCII without escapes or control bytes, its text in `text`.
  bool string(std::string_view& text) {
    if (!next_is('"')) {
      return false;
    }
    // Sixteen bytes at a time, and through a local: p_ could be one of the bytes written to.
    const char* const from = p_;
    const char* const close = json_fast_path_detail::next_special(from, end_);
    if (close == end_ || *close != '"') {
      return false;
    }
    text = std::string_view(from, static_cast<std::size_t>(close - from));
    p_ = close + 1;
    return true;
  }

  // A string, null, or a number without sign or exponent; `integer` set for an integer.
  bool scalar(std::optional<std::int64_t>& integer) {
    if (p_ == end_) {
      return false;
    }
    if (*p_ == '"') {
      std::string_view ignored;
      return string(ignored);
    }
    if (*p_ == 'n') {
      if (end_ - p_ < 4 || std::string_view(p_, 4) != "null") {
        return false;
      }
      p_ += 4;
      return true;
    }
    const char* const digits = p_;
    const char* p = digits;
    std::int64_t value = 0;
    for (; p != end_ && json_fast_path_detail::is_digit(*p); ++p) {
      value = p - digits < json_fast_path_detail::kMaxIntegerDigits ? value * 10 + (*p - '0') : value;
    }
    p_ = p;
    const std::ptrdiff_t count = p - digits;
    if (count == 0 || (count > 1 && *digits == '0')) {
      return false;
    }
    if (p != end_ && *p == '.') {
      const char* const fraction = ++p;
      while (p != end_ && json_fast_path_detail::is_digit(*p)) {
        ++p;
      }
      p_ = p;
      return p != fraction && (p == end_ || (*p != 'e' && *p != 'E'));
    }
    if (count > json_fast_path_detail::kMaxIntegerDigits || (p != end_ && (*p == 'e' || *p == 'E'))) {
      return false;
    }
    integer = value;
    return true;
  }

  const char* p_;
  const char* const end_;
  bool nested_;
  bool usage_is_object_ = false;
  std::int64_t prompt_ = 0;
  std::int64_t completion_ = 0;
};

}  // namespace

SimpleUsage read_simple_usage(std::string_view text, bool nested) {
  return SimpleUsageReader(text, nested).read();
}

std::optional<Usage> parse_usage_with_parser(std::string_view text, bool nested) {
  if (UsageHandler fast(nested); read_common_json(text, fast)) {
    return fast.result();
  }
  json::basic_parser<UsageHandler> parser(json::parse_options{}, nested);
  std::size_t consumed = 0;
  if (parse_whole(parser, text, consumed)) {
    return std::nullopt;
  }
  return parser.handler().result();
}

std::optional<Usage> parse_usage(std::string_view text, bool nested) {
  if (const SimpleUsage simple = read_simple_usage(text, nested); simple.read) {
    return simple.usage;
  }
  return parse_usage_with_parser(text, nested);
}

}  // namespace infergate::openai
