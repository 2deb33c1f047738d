#include "openai/chunk_usage.hpp"

#include <boost/json/basic_parser_impl.hpp>

#include <cstdint>

#include "openai/json_fast_path.hpp"
#include "openai/json_handler.hpp"

namespace infergate::openai {

namespace json = boost::json;

namespace {

// Follows the members that matter by their place: at the top level "usage", "x_groq", "choices"
// and "error"; inside the usage object (or x_groq's) the two counts. Where a name appears twice
// the last one decides, as it does in a DOM.
class ChunkUsageHandler : public JsonHandlerBase {
 public:
  bool on_object_begin(error_code&) {
    value_begins(Kind::object);
    ++depth_;
    return true;
  }
  bool on_object_end(std::size_t, error_code&) { return close(); }
  bool on_array_begin(error_code&) {
    value_begins(Kind::array);
    ++depth_;
    return true;
  }
  bool on_array_end(std::size_t, error_code&) { return close(); }
  bool on_key(json::string_view part, std::size_t, error_code&) {
    const std::string_view key = member_name(part);
    key_ = key == "usage"               ? Key::usage
           : key == "x_groq"            ? Key::x_groq
           : key == "choices"           ? Key::choices
           : key == "error"             ? Key::error
           : key == "prompt_tokens"     ? Key::prompt_tokens
           : key == "completion_tokens" ? Key::completion_tokens
                                        : Key::other;
    return true;
  }
  bool on_string_part(json::string_view, std::size_t, error_code&) { return true; }
  bool on_string(json::string_view, std::size_t, error_code&) { return scalar(Kind::scalar, 0); }
  bool on_number_part(json::string_view, error_code&) { return true; }
  bool on_int64(std::int64_t v, json::string_view, error_code&) { return scalar(Kind::integer, v); }
  bool on_uint64(std::uint64_t v, json::string_view, error_code&) {
    return scalar(Kind::integer, static_cast<std::int64_t>(v));
  }
  bool on_double(double, json::string_view, error_code&) { return scalar(Kind::scalar, 0); }
  bool on_bool(bool, error_code&) { return scalar(Kind::scalar, 0); }
  bool on_null(error_code&) { return scalar(Kind::null, 0); }

  [[nodiscard]] std::optional<ChunkUsage> result() const {
    if (!root_object_ || error_) {
      return std::nullopt;
    }
    ChunkUsage out;
    out.has_choices = has_choices_;
    if (usage_.is_object) {
      out.usage = usage_.counts;
    } else if (groq_usage_.is_object) {  // emptied whenever "x_groq" is named again
      out.usage = groq_usage_.counts;
    }
    return out;
  }

 private:
  enum class Kind : std::uint8_t { object, array, integer, scalar, null };
  enum class Key : std::uint8_t { other, usage, x_groq, choices, error, prompt_tokens, completion_tokens };
  // The top-level member whose array or object the parser is in.
  enum class Member : std::uint8_t { other, usage, x_groq, choices };

  struct UsageObject {
    bool is_object = false;
    Usage counts;
  };

  // A value starts at the current depth, named by key_ when it is a member.
  void value_begins(Kind kind) {
    if (depth_ == 0) {
      root_object_ = kind == Kind::object;
    } else if (depth_ == 1) {
      top_level_member(kind);
    } else if (depth_ == 2 && member_ == Member::choices) {
      has_choices_ = true;  // the array's first element
    } else if (depth_ == 2 && member_ == Member::usage) {
      count(usage_, kind);
    } else if (depth_ == 2 && member_ == Member::x_groq && key_ == Key::usage) {
      groq_usage_ = UsageObject{kind == Kind::object, {}};
      in_groq_usage_ = kind == Kind::object;
    } else if (depth_ == 3 && in_groq_usage_) {
      count(groq_usage_, kind);
    }
    key_ = Key::other;
  }

  void top_level_member(Kind kind) {
    const bool object = kind == Kind::object;
    switch (key_) {
      case Key::usage:
        usage_ = UsageObject{object, {}};
        member_ = object ? Member::usage : Member::other;
        break;
      case Key::x_groq:
        groq_usage_ = {};
        member_ = object ? Member::x_groq : Member::other;
        break;
      case Key::choices:
        has_choices_ = false;
        member_ = kind == Kind::array ? Member::choices : Member::other;
        break;
      case Key::error:
        error_ = kind != Kind::null;
        member_ = Member::other;
        break;
      default:
        member_ = Member::other;
    }
  }

  // A member of a usage object: a count that is not an integer counts 0, as a missing one does.
  void count(UsageObject& usage, Kind kind) {
    const std::int64_t value = kind == Kind::integer ? value_ : 0;
    if (key_ == Key::prompt_tokens) {
      usage.counts.prompt_tokens = value;
    } else if (key_ == Key::completion_tokens) {
      usage.counts.completion_tokens = value;
    }
  }

  bool scalar(Kind kind, std::int64_t value) {
    value_ = value;
    value_begins(kind);
    return true;
  }

  bool close() {
    --depth_;
    if (depth_ == 1) {
      member_ = Member::other;
    } else if (depth_ == 2) {
      in_groq_usage_ = false;
    }
    key_ = Key::other;
    return true;
  }

  int depth_ = 0;
  bool root_object_ = false;
  bool error_ = false;
  bool has_choices_ = false;
  bool in_groq_usage_ = false;
  Member member_ = Member::other;
  Key key_ = Key::other;
  std::int64_t value_ = 0;
  UsageObject usage_;
  UsageObject groq_usage_;
};

}  // namespace

std::optional<ChunkUsage> read_chunk_usage(std::string_view data) {
  if (ChunkUsageHandler fast; read_common_json(data, fast)) {
    return fast.result();
  }
  json::basic_parser<ChunkUsageHandler> parser(json::parse_options{});
  std::size_t consumed = 0;
  if (parse_whole(parser, data, consumed)) {
    return std::nullopt;
  }
  return parser.handler().result();
}

}  // namespace infergate::openai
