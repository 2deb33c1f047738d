#include "openai/request_view.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

namespace infergate::openai {

namespace json = boost::json;

namespace {

constexpr std::int64_t kCharsPerToken = 4;
constexpr std::int64_t kTokensPerMessage = 4;  // role and the chat template's markers

// Text characters and token ids in a prompt, messages or embeddings input, however nested.
void count_prompt(const json::value& v, std::int64_t& chars, std::int64_t& token_ids) {
  if (v.is_string()) {
    chars += static_cast<std::int64_t>(v.get_string().size());
  } else if (v.is_int64() || v.is_uint64()) {
    ++token_ids;
  } else if (v.is_array()) {
    for (const auto& item : v.get_array()) {
      count_prompt(item, chars, token_ids);
    }
  } else if (v.is_object()) {
    const auto& o = v.get_object();
    for (const char* field : {"content", "text"}) {
      if (const auto* part = o.if_contains(field)) {
        count_prompt(*part, chars, token_ids);
      }
    }
  }
}

std::int64_t estimate_prompt_tokens(const json::object& body) {
  std::int64_t chars = 0;
  std::int64_t token_ids = 0;
  std::int64_t messages = 0;
  if (const auto* m = body.if_contains("messages"); m && m->is_array()) {
    messages = static_cast<std::int64_t>(m->get_array().size());
    count_prompt(*m, chars, token_ids);
  }
  for (const char* field : {"prompt", "input"}) {
    if (const auto* p = body.if_contains(field)) {
      count_prompt(*p, chars, token_ids);
    }
  }
  return std::max<std::int64_t>(
      1, (chars + kCharsPerToken - 1) / kCharsPerToken + token_ids + messages * kTokensPerMessage);
}

}  // namespace

std::optional<ApiError> parse_request_view(std::string_view body, RequestView& out) {
  out = RequestView{};
  // Most requests fit a stack buffer; larger ones spill to the heap through the same resource.
  unsigned char scratch[8192];
  json::monotonic_resource resource(scratch, sizeof(scratch));
  boost::system::error_code ec;
  json::value parsed = json::parse(body, ec, &resource);
  if (ec) {
    return invalid_request(fmt::format("the request body is not valid JSON: {}", ec.message()));
  }
  if (!parsed.is_object()) {
    return invalid_request("the request body must be a JSON object");
  }
  const auto& object = parsed.get_object();
  const auto* model = object.if_contains("model");
  if (model == nullptr) {
    return invalid_request("'model' is required", "model");
  }
  if (!model->is_string()) {
    return invalid_request("'model' must be a string", "model");
  }
  out.model = model->get_string();
  if (const auto* stream = object.if_contains("stream"); stream && !stream->is_null()) {
    if (!stream->is_bool()) {
      return invalid_request("'stream' must be a boolean", "stream");
    }
    out.stream = stream->get_bool();
  }
  if (const auto* options = object.if_contains("stream_options"); options && !options->is_null()) {
    if (!options->is_object()) {
      return invalid_request("'stream_options' must be an object", "stream_options");
    }
    out.has_stream_options = true;
    if (const auto* usage = options->get_object().if_contains("include_usage"); usage && !usage->is_null()) {
      if (!usage->is_bool()) {
        return invalid_request("'stream_options.include_usage' must be a boolean", "stream_options.include_usage");
      }
      out.include_usage = usage->get_bool();
    }
  }
  for (const char* field : {"max_tokens", "max_completion_tokens"}) {
    if (const auto* v = object.if_contains(field); v && !v->is_null()) {
      if (!v->is_int64() && !v->is_uint64()) {
        return invalid_request(fmt::format("'{}' must be an integer", field), std::string(field));
      }
      out.max_tokens = v->is_int64() ? v->get_int64() : static_cast<std::int64_t>(v->get_uint64());
    }
  }
  out.prompt_tokens_estimate = estimate_prompt_tokens(object);
  return std::nullopt;
}

std::string with_usage_requested(std::string_view body) {
  const std::size_t brace = body.find('{');
  std::string out;
  out.reserve(body.size() + 48);
  out.append(body.substr(0, brace + 1));
  out.append(R"("stream_options":{"include_usage":true})");
  const std::string_view rest = body.substr(brace + 1);
  const std::size_t next = rest.find_first_not_of(" \t\r\n");
  if (next != std::string_view::npos && rest[next] != '}') {
    out.push_back(',');
  }
  out.append(rest);
  return out;
}

namespace {

// End (one past the closing quote) of the JSON string starting at `begin` (an opening quote).
std::size_t string_end(std::string_view text, std::size_t begin) {
  for (std::size_t i = begin + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

std::size_t skip_space(std::string_view text, std::size_t i) {
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) {
    ++i;
  }
  return i;
}

}  // namespace

std::optional<std::string> with_model(std::string_view body, std::string_view model) {
  int depth = 0;
  bool key_next = false;
  for (std::size_t i = 0; i < body.size();) {
    const char c = body[i];
    if (c == '"') {
      const std::size_t end = string_end(body, i);
      if (end == std::string_view::npos) {
        return std::nullopt;
      }
      if (depth == 1 && key_next) {
        key_next = false;
        if (body.substr(i, end - i) == "\"model\"") {
          std::size_t value = skip_space(body, end);
          if (value >= body.size() || body[value] != ':') {
            return std::nullopt;
          }
          value = skip_space(body, value + 1);
          if (value >= body.size() || body[value] != '"') {
            return std::nullopt;
          }
          const std::size_t value_end = string_end(body, value);
          if (value_end == std::string_view::npos) {
            return std::nullopt;
          }
          std::string out;
          out.reserve(body.size() + model.size());
          out.append(body.substr(0, value));
          out.append(json::serialize(json::string(model)));
          out.append(body.substr(value_end));
          return out;
        }
      }
      i = end;
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
      key_next = depth == 1 && c == '{';
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 1) {
      key_next = true;
    }
    ++i;
  }
  return std::nullopt;
}

}  // namespace infergate::openai
