#include "openai/embedding_reply.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include "core/base64.hpp"
#include "core/json_error.hpp"

namespace infergate::openai {

namespace json = boost::json;

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
      out.dimensions = embedding->is_array() ? embedding->get_array().size()
                                             : base64_decoded_size(embedding->get_string()) / sizeof(float);
    }
    ++out.vectors;
  }
  if (const auto* usage = object.if_contains("usage"); usage && usage->is_object()) {
    out.usage = usage_from_object(usage->get_object());
  }
  return std::nullopt;
}

}  // namespace infergate::openai
