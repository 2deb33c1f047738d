#include "openai/api_error.hpp"

#include <boost/json.hpp>

#include <algorithm>

#include "core/json_string.hpp"
#include "core/utf8_text.hpp"
#include "http/message_head.hpp"
#include "openai/api_base.hpp"

namespace infergate::openai {

namespace json = boost::json;

std::string ApiError::to_json() const {
  json::object error;
  error["message"] = message;
  error["type"] = type;
  error["param"] = param ? json::value(*param) : json::value(nullptr);
  error["code"] = code ? json::value(*code) : json::value(nullptr);
  return json::serialize(json::object{{"error", std::move(error)}});
}

ApiError invalid_request(std::string message, std::optional<std::string> param, std::optional<std::string> code) {
  return ApiError{400, "invalid_request_error", std::move(message), std::move(param), std::move(code)};
}

ApiError model_not_found(std::string_view model) {
  return ApiError{404, "invalid_request_error",
                  "The model '" + std::string(model) + "' does not exist; GET /v1/models lists the models served here.",
                  std::string("model"), std::string("model_not_found")};
}

namespace {

// A path of the OpenAI API without its /v1: a client whose base URL lacks it.
bool lacks_v1(std::string_view path) {
  return path.starts_with("/models/") || std::find(kApiPaths.begin(), kApiPaths.end(), path) != kApiPaths.end();
}

}  // namespace

ApiError route_not_found(std::string_view method, std::string_view target) {
  std::string message = "No route for " + std::string(method) + " " + std::string(target);
  if (lacks_v1(target.substr(0, target.find('?')))) {
    message += "; did you mean /v1" + std::string(target) + "? (an OpenAI client's base URL ends in /v1)";
  }
  return ApiError{404, "invalid_request_error", std::move(message), std::nullopt, std::string("not_found")};
}

std::optional<ApiError> encoded_body(std::string_view content_encoding) {
  if (content_encoding.empty() || http::iequals(content_encoding, "identity")) {
    return std::nullopt;
  }
  return ApiError{415, "invalid_request_error",
                  "the request body is sent with Content-Encoding: " + std::string(content_encoding) +
                      ", which this server does not decode; send it uncompressed",
                  std::nullopt, std::string("unsupported_content_encoding")};
}

ApiError method_not_allowed(std::string_view method, std::string_view path) {
  return ApiError{405, "invalid_request_error", std::string(method) + " is not allowed on " + std::string(path)};
}

std::string json_string(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

std::string error_message_from_body(std::string_view body) {
  boost::system::error_code ec;
  json::value parsed = json::parse(body, ec);
  if (!ec && parsed.is_object()) {
    const auto& object = parsed.get_object();
    if (const auto* error = object.if_contains("error")) {
      if (error->is_object()) {
        if (const auto* message = error->get_object().if_contains("message"); message && message->is_string()) {
          return std::string(message->get_string());
        }
      } else if (error->is_string()) {
        return std::string(error->get_string());
      }
    }
    if (const auto* detail = object.if_contains("detail"); detail && detail->is_string()) {
      return std::string(detail->get_string());
    }
  }
  // Not JSON (an HTML error page, say): its start, as valid UTF-8, since it goes into JSON.
  constexpr std::size_t kMax = 300;
  std::string text = valid_utf8(body, kMax);
  if (body.size() > kMax) {
    text += "...";
  }
  return text;
}

}  // namespace infergate::openai
