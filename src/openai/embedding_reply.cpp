#include "openai/embedding_reply.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include "core/json_error.hpp"

namespace infergate::openai {

namespace json = boost::json;

namespace {

// Float32s a base64 text carries: three bytes per four letters, less the padding.
std::size_t base64_floats(std::string_view text) {
  if (text.size() < 4) {
    return 0;
  }
  std::size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') {
    ++padding;
  }
  return (text.size() / 4 * 3 - padding) / sizeof(float);
}

std::int64_t count_of(const json::object& usage, std::string_view key) {
  const auto* v = usage.if_contains(key);
  return v != nullptr && v->is_int64() ? v->get_int64() : 0;
}

}  // namespace

std::optional<std::string> parse_embedding_reply(std::string_view body, EmbeddingReply& out) {
  out = EmbeddingReply{};
  std::string syntax_error;
  const json::value parsed = parse_json(body, syntax_error);
  if (!syntax_error.empty()) {
    return "not valid JSON: " + syntax_error;
  }
  if (!parsed.is_object()) {
    return std::string("not a JSON object");
  }
  const json::object& object = parsed.get_object();
  const auto* data = object.if_contains("data");
  if (data == nullptr || !data->is_array()) {
    return std::string("without a 'data' array of embeddings");
  }
  for (std::size_t i = 0; i < data->get_array().size(); ++i) {
    const json::value& item = data->get_array()[i];
    const auto* embedding = item.is_object() ? item.get_object().if_contains("embedding") : nullptr;
    if (embedding == nullptr || !(embedding->is_array() || embedding->is_string())) {
      return fmt::format("data[{}] without an 'embedding' (an array of floats or a base64 string)", i);
    }
    if (i == 0) {
      out.dimensions = embedding->is_array() ? embedding->get_array().size() : base64_floats(embedding->get_string());
    }
    ++out.vectors;
  }
  if (const auto* usage = object.if_contains("usage"); usage && usage->is_object()) {
    out.usage = Usage{count_of(usage->get_object(), "prompt_tokens"), 0};
  }
  return std::nullopt;
}

}  // namespace infergate::openai
