#include "openai/request_view.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>
#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <limits>
#include <utility>

#include "core/json_error.hpp"
#include "openai/json_fast_path.hpp"
#include "openai/json_handler.hpp"

namespace infergate::openai {

namespace json = boost::json;

namespace {

constexpr std::int64_t kCharsPerToken = 4;
constexpr std::int64_t kTokensPerMessage = 4;  // role and the chat template's markers

// What a value is to the gateway, from where it sits in the request.
enum class Role : std::uint8_t {
  other,
  model,
  stream,
  stream_options,
  include_usage,
  max_tokens,
  max_completion_tokens,
  max_output_tokens,  // the Responses API's
  messages,
  prompt,  // "prompt", "input" or "instructions": counted whatever its type
};

// The type check of one field, last occurrence winning as in a DOM.
enum class Seen : std::uint8_t { absent, valid, wrong };

// Reads the request in one pass of Boost.JSON's validating parser without building a DOM: the
// routing fields, their types, and the prompt size (text characters and token ids inside
// messages[].content / .text, prompt and input, however nested).
class RequestHandler : public JsonHandlerBase {
 public:
  explicit RequestHandler(RequestView& out) : out_(out) {}

  bool on_object_begin(error_code&) { return begin(true); }
  bool on_object_end(std::size_t, error_code&) { return end(); }
  bool on_array_begin(error_code&) { return begin(false); }
  bool on_array_end(std::size_t n, error_code&) {
    if (depth_ == 2 && frames_[1].role == Role::messages) {
      messages_ = static_cast<std::int64_t>(n);
    }
    return end();
  }
  bool on_key(json::string_view part, std::size_t, error_code&) {
    const std::string_view key = member_name(part);
    Frame& f = frames_[depth_ - 1];
    f.next_counts = f.counting && (key == "content" || key == "text");
    f.next_role = Role::other;
    if (depth_ == 1) {
      out_.model_members += key == "model" ? 1 : 0;
      out_.stream_options_members += key == "stream_options" ? 1 : 0;
      f.next_role = key == "model"                                               ? Role::model
                    : key == "stream"                                            ? Role::stream
                    : key == "stream_options"                                    ? Role::stream_options
                    : key == "max_tokens"                                        ? Role::max_tokens
                    : key == "max_completion_tokens"                             ? Role::max_completion_tokens
                    : key == "max_output_tokens"                                 ? Role::max_output_tokens
                    : key == "messages"                                          ? Role::messages
                    : key == "prompt" || key == "input" || key == "instructions" ? Role::prompt
                                                                                 : Role::other;
    } else if (depth_ == 2 && f.role == Role::stream_options && key == "include_usage") {
      f.next_role = Role::include_usage;
    }
    return true;
  }
  bool on_string_part(json::string_view part, std::size_t, error_code&) {
    string_part(part);
    return true;
  }
  bool on_string(json::string_view part, std::size_t, error_code&) {
    string_part(part);
    in_string_ = false;
    return true;
  }
  bool on_number_part(json::string_view, error_code&) { return true; }
  bool on_int64(std::int64_t v, json::string_view, error_code&) { return integer(v); }
  // Above the int64 range: saturated, not wrapped into a negative count.
  bool on_uint64(std::uint64_t v, json::string_view, error_code&) {
    return integer(static_cast<std::int64_t>(std::min<std::uint64_t>(v, std::numeric_limits<std::int64_t>::max())));
  }
  bool on_double(double, json::string_view, error_code&) {
    mistype(place().first);
    return true;
  }
  bool on_bool(bool v, error_code&) {
    const Role role = place().first;
    if (role == Role::stream) {
      stream_ = Seen::valid;
      out_.stream = v;
    } else if (role == Role::include_usage) {
      include_usage_ = Seen::valid;
      out_.include_usage = v;
    } else {
      mistype(role);
    }
    return true;
  }
  // Null is as good as absent, except for the one field that is required.
  bool on_null(error_code&) {
    switch (place().first) {
      case Role::model:
        model_ = Seen::wrong;
        break;
      case Role::stream:
        stream_ = Seen::absent;
        out_.stream = false;
        break;
      case Role::stream_options:  // and so is its include_usage, where an earlier one had it
        stream_options_ = Seen::absent;
        include_usage_ = Seen::absent;
        out_.include_usage = false;
        break;
      case Role::include_usage:
        include_usage_ = Seen::absent;
        out_.include_usage = false;
        break;
      case Role::max_tokens:
        max_tokens_ = Seen::absent;
        break;
      case Role::max_completion_tokens:
        max_completion_tokens_ = Seen::absent;
        break;
      case Role::max_output_tokens:
        max_output_tokens_ = Seen::absent;
        break;
      default:
        break;
    }
    return true;
  }
  // The first problem with the fields, in the order a user fixes them; nullopt when none.
  std::optional<ApiError> finish() {
    if (!root_object_) {
      return invalid_request("the request body must be a JSON object");
    }
    if (model_ == Seen::absent) {
      return invalid_request("'model' is required", "model");
    }
    if (model_ == Seen::wrong) {
      return invalid_request("'model' must be a string", "model");
    }
    if (stream_ == Seen::wrong) {
      return invalid_request("'stream' must be a boolean", "stream");
    }
    if (stream_options_ == Seen::wrong) {
      return invalid_request("'stream_options' must be an object", "stream_options");
    }
    if (include_usage_ == Seen::wrong) {
      return invalid_request("'stream_options.include_usage' must be a boolean", "stream_options.include_usage");
    }
    if (max_tokens_ == Seen::wrong) {
      return invalid_request("'max_tokens' must be an integer", "max_tokens");
    }
    if (max_completion_tokens_ == Seen::wrong) {
      return invalid_request("'max_completion_tokens' must be an integer", "max_completion_tokens");
    }
    if (max_output_tokens_ == Seen::wrong) {
      return invalid_request("'max_output_tokens' must be an integer", "max_output_tokens");
    }
    // max_completion_tokens (OpenAI's newer name) wins over max_tokens; the Responses API has only
    // max_output_tokens.
    if (max_output_tokens_ == Seen::valid) {
      out_.max_tokens = max_output_value_;
    } else if (max_completion_tokens_ == Seen::valid) {
      out_.max_tokens = max_completion_value_;
    } else if (max_tokens_ == Seen::valid) {
      out_.max_tokens = max_tokens_value_;
    }
    out_.prompt_tokens_estimate = std::max<std::int64_t>(
        1, (chars_ + kCharsPerToken - 1) / kCharsPerToken + token_ids_ + messages_ * kTokensPerMessage);
    return std::nullopt;
  }

 private:
  struct Frame {
    Role role = Role::other;  // of the container itself
    bool object = false;
    bool counting = false;     // its values count towards the prompt (arrays: all; objects: see below)
    bool next_counts = false;  // objects: the value after the last key counts
    Role next_role = Role::other;
  };
  static constexpr int kMaxDepth = 64;  // beyond Boost.JSON's default limit of 32

  // The role of the value now starting, and whether it counts towards the prompt.
  std::pair<Role, bool> place() const {
    if (depth_ == 0) {
      return {Role::other, false};
    }
    const Frame& parent = frames_[depth_ - 1];
    if (parent.object) {
      return {parent.next_role, parent.next_counts || parent.next_role == Role::prompt};
    }
    return {Role::other, parent.counting};
  }

  bool begin(bool object) {
    auto [role, counts] = place();
    if (depth_ == 0) {
      root_object_ = object;
    }
    if (role == Role::messages && !object) {
      counts = true;  // messages counts only as an array
    }
    if (role == Role::stream_options && object) {
      stream_options_ = Seen::valid;
      include_usage_ = Seen::absent;
      out_.include_usage = false;
    } else {
      mistype(role);
    }
    if (depth_ >= kMaxDepth) {
      return false;
    }
    frames_[depth_++] = Frame{role, object, counts, false, Role::other};
    return true;
  }

  bool end() {
    --depth_;
    return true;
  }

  // A value of a type its field does not take marks the field (other roles take anything).
  void mistype(Role role) {
    switch (role) {
      case Role::model:
        model_ = Seen::wrong;
        break;
      case Role::stream:
        stream_ = Seen::wrong;
        break;
      case Role::stream_options:
        stream_options_ = Seen::wrong;
        break;
      case Role::include_usage:
        include_usage_ = Seen::wrong;
        break;
      case Role::max_tokens:
        max_tokens_ = Seen::wrong;
        break;
      case Role::max_completion_tokens:
        max_completion_tokens_ = Seen::wrong;
        break;
      case Role::max_output_tokens:
        max_output_tokens_ = Seen::wrong;
        break;
      default:
        break;
    }
  }

  bool integer(std::int64_t v) {
    const auto [role, counts] = place();
    if (counts) {
      ++token_ids_;
    }
    if (role == Role::max_tokens) {
      max_tokens_ = Seen::valid;
      max_tokens_value_ = v;
    } else if (role == Role::max_completion_tokens) {
      max_completion_tokens_ = Seen::valid;
      max_completion_value_ = v;
    } else if (role == Role::max_output_tokens) {
      max_output_tokens_ = Seen::valid;
      max_output_value_ = v;
    } else {
      mistype(role);
    }
    return true;
  }

  void string_part(json::string_view part) {
    if (!in_string_) {  // the first part of a string value
      in_string_ = true;
      const auto [role, counts] = place();
      string_role_ = role;
      string_counts_ = counts;
      if (role == Role::model) {
        model_ = Seen::valid;
        out_.model.clear();
      } else {
        mistype(role);
      }
    }
    if (string_counts_) {
      chars_ += static_cast<std::int64_t>(part.size());
    }
    if (string_role_ == Role::model) {
      out_.model.append(part.data(), part.size());
    }
  }

  RequestView& out_;
  Frame frames_[kMaxDepth];
  int depth_ = 0;
  bool root_object_ = false;
  bool in_string_ = false;
  Role string_role_ = Role::other;
  bool string_counts_ = false;
  Seen model_ = Seen::absent;
  Seen stream_ = Seen::absent;
  Seen stream_options_ = Seen::absent;
  Seen include_usage_ = Seen::absent;
  Seen max_tokens_ = Seen::absent;
  Seen max_completion_tokens_ = Seen::absent;
  Seen max_output_tokens_ = Seen::absent;
  std::int64_t max_tokens_value_ = 0;
  std::int64_t max_completion_value_ = 0;
  std::int64_t max_output_value_ = 0;
  std::int64_t chars_ = 0;
  std::int64_t token_ids_ = 0;
  std::int64_t messages_ = 0;
};

}  // namespace

std::optional<ApiError> parse_request_view(std::string_view body, RequestView& out) {
  out = RequestView{};
  if (RequestHandler fast(out); read_common_json(body, fast)) {
    return fast.finish();
  }
  out = RequestView{};
  json::basic_parser<RequestHandler> parser(json::parse_options{}, out);
  std::size_t consumed = 0;
  if (const auto ec = parse_whole(parser, body, consumed)) {
    return invalid_request("the request body is not valid JSON: " + describe_json_error(body, consumed, ec));
  }
  return parser.handler().finish();
}

}  // namespace infergate::openai
