#include "openai/request_view.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

namespace infergate::openai {

namespace json = boost::json;

std::optional<ApiError> parse_request_view(std::string_view body, RequestView& out) {
  out = RequestView{};
  boost::system::error_code ec;
  json::value parsed = json::parse(body, ec);
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

}  // namespace infergate::openai
