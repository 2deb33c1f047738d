#include "openai/completion_request.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <cmath>
#include <functional>

#include "core/random.hpp"
#include "core/text_tokens.hpp"
#include "openai/request_fields.hpp"

namespace infergate::openai {

namespace json = boost::json;

namespace {

class PromptDigest {
 public:
  // Something that shapes the prompt without being text of it, such as a message's role.
  void add_marker(std::string_view marker) { chain_ = mix64(chain_ ^ std::hash<std::string_view>{}(marker)); }
  void add_text(std::string_view text) {
    hash_ = mix64(hash_ ^ std::hash<std::string_view>{}(text));
    for_each_word(text, [this](std::string_view word) { add_word(std::hash<std::string_view>{}(word)); });
  }
  void add_token(std::int64_t token) {
    hash_ = mix64(hash_ ^ static_cast<std::uint64_t>(token));
    add_word(static_cast<std::uint64_t>(token));
  }
  [[nodiscard]] std::size_t words() const { return words_; }
  [[nodiscard]] std::uint64_t hash() const { return hash_; }
  [[nodiscard]] std::vector<std::uint64_t> take_blocks() { return std::move(blocks_); }

 private:
  void add_word(std::uint64_t word) {
    chain_ = mix64(chain_ ^ word);
    if (++words_ % kPrefixBlockWords == 0) {
      blocks_.push_back(chain_);
    }
  }

  std::size_t words_ = 0;
  std::uint64_t hash_ = 0x243f6a8885a308d3ULL;
  std::uint64_t chain_ = 0x13198a2e03707344ULL;
  std::vector<std::uint64_t> blocks_;
};

// A message's content, `field` naming the message: a string, or parts whose text counts; none
// (absent or null) is no text.
std::optional<ApiError> read_content(const json::value* content, const std::string& field, PromptDigest& digest) {
  if (content == nullptr || content->is_null()) {
    return std::nullopt;
  }
  if (content->is_string()) {
    digest.add_text(content->get_string());
  } else if (content->is_array()) {
    for (const auto& part : content->get_array()) {
      if (!part.is_object()) {
        return wrong_type(field + ".content[]", "an object", part);
      }
      if (const auto* text = part.get_object().if_contains("text"); text && text->is_string()) {
        digest.add_text(text->get_string());
      }
    }
  } else {
    return wrong_type(field + ".content", "a string or an array of content parts", *content);
  }
  return std::nullopt;
}

// A function call's name and arguments, as a model reads them back: text of the prompt.
void add_function_text(const json::object& function, PromptDigest& digest) {
  for (const char* key : {"name", "arguments"}) {
    if (const auto* text = function.if_contains(key); text && text->is_string()) {
      digest.add_text(text->get_string());
    }
  }
}

// An assistant message's tool calls, each a function's name and arguments.
void add_tool_call_text(const json::value* calls, PromptDigest& digest) {
  if (calls == nullptr || !calls->is_array()) {
    return;
  }
  for (const auto& call : calls->get_array()) {
    const auto* function = call.is_object() ? call.get_object().if_contains("function") : nullptr;
    if (function != nullptr && function->is_object()) {
      add_function_text(function->get_object(), digest);
    }
  }
}

std::optional<ApiError> read_messages(const json::value* messages, PromptDigest& digest) {
  if (messages == nullptr) {
    return invalid_request("'messages' is required", "messages");
  }
  if (!messages->is_array()) {
    return wrong_type("messages", "an array of message objects", *messages);
  }
  if (messages->get_array().empty()) {
    return invalid_request("'messages' must contain at least one message", "messages");
  }
  std::size_t index = 0;
  for (const auto& message : messages->get_array()) {
    const std::string field = fmt::format("messages[{}]", index++);
    if (!message.is_object()) {
      return wrong_type(field, "an object", message);
    }
    const auto& object = message.get_object();
    const auto* role = object.if_contains("role");
    if (role == nullptr) {
      return invalid_request(fmt::format("'{}.role' is required", field), field + ".role");
    }
    if (!role->is_string()) {
      return wrong_type(field + ".role", "a string", *role);
    }
    digest.add_marker(role->get_string());
    // Assistant messages with tool calls may carry no content; the calls are prompt text.
    if (auto error = read_content(object.if_contains("content"), field, digest)) {
      return error;
    }
    add_tool_call_text(object.if_contains("tool_calls"), digest);
  }
  return std::nullopt;
}

std::optional<ApiError> read_prompt(const json::value* prompt, PromptDigest& digest) {
  if (prompt == nullptr) {
    return invalid_request("'prompt' is required", "prompt");
  }
  if (prompt->is_string()) {
    digest.add_text(prompt->get_string());
    return std::nullopt;
  }
  if (!prompt->is_array() || prompt->get_array().empty()) {
    return wrong_type("prompt", "a string, an array of token ids, or an array holding one string", *prompt);
  }
  const auto& items = prompt->get_array();
  if (items.front().is_string() || items.front().is_array()) {
    if (items.size() != 1) {
      return invalid_request("only one prompt per request is supported", "prompt");
    }
    return read_prompt(&items.front(), digest);
  }
  for (const auto& token : items) {
    if (!token.is_int64() && !token.is_uint64()) {
      return wrong_type("prompt[]", "an integer token id", token);
    }
    digest.add_token(token.is_int64() ? token.get_int64() : static_cast<std::int64_t>(token.get_uint64()));
  }
  return std::nullopt;
}

// The Responses API's input: a string, or an array of items (messages, whose content is a string
// or parts with text; tool outputs, whose output is a string), after the instructions.
std::optional<ApiError> read_input(const json::object& body, PromptDigest& digest) {
  if (const auto* instructions = body.if_contains("instructions"); instructions && !instructions->is_null()) {
    if (!instructions->is_string()) {
      return wrong_type("instructions", "a string", *instructions);
    }
    digest.add_marker("instructions");
    digest.add_text(instructions->get_string());
  }
  if (const auto* previous = body.if_contains("previous_response_id"); previous && !previous->is_null()) {
    if (!previous->is_string()) {
      return wrong_type("previous_response_id", "a string", *previous);
    }
    // As OpenAI words an id it does not hold: this server keeps no response.
    return invalid_request(fmt::format("Previous response with id '{}' not found (this server stores no responses: "
                                       "send the conversation as input)",
                                       std::string_view(previous->get_string())),
                           "previous_response_id");
  }
  const auto* input = body.if_contains("input");
  if (input == nullptr) {
    return invalid_request("'input' is required", "input");
  }
  if (input->is_string()) {
    digest.add_text(input->get_string());
    return std::nullopt;
  }
  if (!input->is_array()) {
    return wrong_type("input", "a string or an array of input items", *input);
  }
  std::size_t index = 0;
  for (const auto& item : input->get_array()) {
    const std::string field = fmt::format("input[{}]", index++);
    if (!item.is_object()) {
      return wrong_type(field, "an object", item);
    }
    const auto& object = item.get_object();
    if (const auto* role = object.if_contains("role"); role && role->is_string()) {
      digest.add_marker(role->get_string());
    }
    if (const auto* output = object.if_contains("output"); output && output->is_string()) {
      digest.add_text(output->get_string());
    }
    add_function_text(object, digest);  // a function_call item of an earlier answer
    if (auto error = read_content(object.if_contains("content"), field, digest)) {
      return error;
    }
  }
  return std::nullopt;
}

// A double that is an integer in the int64 range (casting one outside it is undefined).
bool is_whole_int64(double d) {
  return d >= -9223372036854775808.0 && d < 9223372036854775808.0 && std::trunc(d) == d;
}

// Reads an optional integer field; null means absent.
std::optional<ApiError> read_int(const json::object& body, std::string_view field, std::int64_t minimum,
                                 std::optional<std::int64_t>& out) {
  const auto* v = body.if_contains(field);
  if (v == nullptr || v->is_null()) {
    return std::nullopt;
  }
  std::int64_t value = 0;
  if (v->is_int64()) {
    value = v->get_int64();
  } else if (v->is_uint64()) {
    value = static_cast<std::int64_t>(std::min<std::uint64_t>(v->get_uint64(), INT64_MAX));
  } else if (v->is_double() && is_whole_int64(v->get_double())) {
    value = static_cast<std::int64_t>(v->get_double());
  } else {
    return wrong_type(field, "an integer", *v);
  }
  if (value < minimum) {
    return invalid_request(fmt::format("'{}' must be at least {}, got {}", field, minimum, value), std::string(field));
  }
  out = value;
  return std::nullopt;
}

std::optional<ApiError> read_bool(const json::object& body, std::string_view field, bool& out) {
  const auto* v = body.if_contains(field);
  if (v == nullptr || v->is_null()) {
    return std::nullopt;
  }
  if (!v->is_bool()) {
    return wrong_type(field, "a boolean", *v);
  }
  out = v->get_bool();
  return std::nullopt;
}

// Sampling fields are accepted and ignored, but a wrong type is still the client's mistake.
std::optional<ApiError> check_sampling_fields(const json::object& body) {
  for (std::string_view field :
       {"temperature", "top_p", "frequency_penalty", "presence_penalty", "repetition_penalty", "top_k", "min_p"}) {
    const auto* v = body.if_contains(field);
    if (v != nullptr && !v->is_null() && !v->is_number()) {
      return wrong_type(field, "a number", *v);
    }
  }
  if (const auto* seed = body.if_contains("seed");
      seed && !seed->is_null() && !seed->is_int64() && !seed->is_uint64()) {
    return wrong_type("seed", "an integer", *seed);
  }
  if (const auto* stop = body.if_contains("stop"); stop && !stop->is_null() && !stop->is_string()) {
    if (!stop->is_array()) {
      return wrong_type("stop", "a string or an array of strings", *stop);
    }
    for (const auto& s : stop->get_array()) {
      if (!s.is_string()) {
        return wrong_type("stop[]", "a string", s);
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<ApiError> parse_completion_request(std::string_view body, Endpoint endpoint, CompletionRequest& out) {
  out = CompletionRequest{};
  out.endpoint = endpoint;
  json::value parsed;
  if (auto error = parse_request_object(body, parsed, out.model)) {
    return error;
  }
  const auto& object = parsed.get_object();

  PromptDigest digest;
  auto error = endpoint == Endpoint::chat          ? read_messages(object.if_contains("messages"), digest)
               : endpoint == Endpoint::completions ? read_prompt(object.if_contains("prompt"), digest)
                                                   : read_input(object, digest);
  if (error) {
    return error;
  }
  out.prompt_words = digest.words();
  out.prompt_hash = digest.hash();
  out.prefix_blocks = digest.take_blocks();

  if ((error = read_bool(object, "stream", out.stream))) {
    return error;
  }
  if (const auto* options = object.if_contains("stream_options"); options && !options->is_null()) {
    if (!options->is_object()) {
      return wrong_type("stream_options", "an object", *options);
    }
    const auto* usage = options->get_object().if_contains("include_usage");
    if (usage != nullptr && !usage->is_null()) {
      if (!usage->is_bool()) {
        return wrong_type("stream_options.include_usage", "a boolean", *usage);
      }
      out.include_usage = usage->get_bool();
    }
  }
  std::optional<std::int64_t> max_tokens;
  std::optional<std::int64_t> max_completion_tokens;
  std::optional<std::int64_t> max_output_tokens;
  std::optional<std::int64_t> min_tokens;
  std::optional<std::int64_t> n;
  if ((error = read_int(object, "max_tokens", 1, max_tokens)) ||
      (error = read_int(object, "max_completion_tokens", 1, max_completion_tokens)) ||
      (error = read_int(object, "max_output_tokens", 1, max_output_tokens)) ||
      (error = read_int(object, "min_tokens", 0, min_tokens)) || (error = read_int(object, "n", 1, n)) ||
      (error = read_bool(object, "ignore_eos", out.ignore_eos)) || (error = check_sampling_fields(object))) {
    return error;
  }
  if (endpoint != Endpoint::completions &&
      (error = read_tool_choice(object, endpoint == Endpoint::responses, out.tool_choice))) {
    return error;
  }
  if (n && *n != 1) {
    return invalid_request("only n=1 is supported", "n");
  }
  out.max_tokens = endpoint == Endpoint::responses ? max_output_tokens
                   : max_completion_tokens         ? max_completion_tokens
                                                   : max_tokens;
  out.min_tokens = min_tokens.value_or(0);
  if (out.max_tokens && out.min_tokens > *out.max_tokens) {
    return invalid_request(fmt::format("'min_tokens' ({}) must not exceed the maximum number of tokens ({})",
                                       out.min_tokens, *out.max_tokens),
                           "min_tokens");
  }
  return std::nullopt;
}

}  // namespace infergate::openai
