#pragma once
// The OpenAI error shape: {"error": {"message", "type", "param", "code"}} with an HTTP status.
#include <optional>
#include <string>
#include <string_view>

namespace infergate::openai {

struct ApiError {
  int status = 400;
  std::string type = "invalid_request_error";
  std::string message;
  std::optional<std::string> param;
  std::optional<std::string> code;

  [[nodiscard]] std::string to_json() const;
};

ApiError invalid_request(std::string message, std::optional<std::string> param = {},
                         std::optional<std::string> code = {});
ApiError model_not_found(std::string_view model);
ApiError route_not_found(std::string_view method, std::string_view target);
// 405 for a known path asked with a method it does not take (the answer's Allow names those).
ApiError method_not_allowed(std::string_view method, std::string_view path);

// 415 for a body sent with a Content-Encoding (gzip, ...): bodies are read as sent, so such a body
// fails as JSON, and this says why. Nullopt when `content_encoding` is empty or identity. Asked only
// once a body failed to parse, so a request that parses pays nothing for it.
std::optional<ApiError> encoded_body(std::string_view content_encoding);

// `text` as a JSON string literal, quotes included.
std::string json_string(std::string_view text);

// Reads an error body from any server. Falls back to the raw text (trimmed to a readable length)
// when the body is not in the OpenAI shape.
std::string error_message_from_body(std::string_view body);

}  // namespace infergate::openai
