#include "openai/embedding_request.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <cstdint>
#include <functional>

#include "core/random.hpp"
#include "core/text_tokens.hpp"
#include "openai/request_fields.hpp"

namespace infergate::openai {

namespace json = boost::json;

namespace {

constexpr std::uint64_t kSeed = 0x452821e638d01377ULL;

ApiError empty_input(const std::string& field) {
  return invalid_request(fmt::format("'{}' is empty; each input needs at least one token", field), field);
}

std::optional<ApiError> text_input(const json::string& text, const std::string& field, EmbeddingInput& out) {
  out.tokens = count_words(text);
  if (out.tokens == 0) {
    return empty_input(field);
  }
  out.hash = mix64(kSeed ^ std::hash<std::string_view>{}(text));
  return std::nullopt;
}

std::optional<ApiError> token_input(const json::array& ids, const std::string& field, EmbeddingInput& out) {
  if (ids.empty()) {
    return empty_input(field);
  }
  out.hash = kSeed;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const bool id = ids[i].is_uint64() || (ids[i].is_int64() && ids[i].get_int64() >= 0);
    if (!id) {
      return wrong_type(fmt::format("{}[{}]", field, i), "a token id (an integer from 0)", ids[i]);
    }
    out.hash =
        mix64(out.hash ^ (ids[i].is_uint64() ? ids[i].get_uint64() : static_cast<std::uint64_t>(ids[i].get_int64())));
  }
  out.tokens = ids.size();
  return std::nullopt;
}

std::optional<ApiError> read_inputs(const json::value* input, std::vector<EmbeddingInput>& out) {
  if (input == nullptr) {
    return invalid_request("'input' is required", "input");
  }
  if (input->is_string()) {
    return text_input(input->get_string(), "input", out.emplace_back());
  }
  if (!input->is_array()) {
    return wrong_type("input", "a string, an array of strings or an array of token ids", *input);
  }
  const json::array& items = input->get_array();
  if (items.empty()) {
    return invalid_request("'input' is an empty array; give at least one input", "input");
  }
  if (items.size() > kMaxEmbeddingInputs) {
    return invalid_request(
        fmt::format("'input' holds {} inputs; at most {} go in one request", items.size(), kMaxEmbeddingInputs),
        "input");
  }
  // An array of integers is one input given as token ids.
  if (items.front().is_int64() || items.front().is_uint64()) {
    return token_input(items, "input", out.emplace_back());
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string field = fmt::format("input[{}]", i);
    std::optional<ApiError> error;
    if (items[i].is_string()) {
      error = text_input(items[i].get_string(), field, out.emplace_back());
    } else if (items[i].is_array()) {
      error = token_input(items[i].get_array(), field, out.emplace_back());
    } else {
      error = wrong_type(field, "a string or an array of token ids", items[i]);
    }
    if (error) {
      return error;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<ApiError> parse_embedding_request(std::string_view body, EmbeddingRequest& out) {
  out = EmbeddingRequest{};
  json::value parsed;
  if (auto error = parse_request_object(body, parsed, out.model)) {
    return error;
  }
  const json::object& object = parsed.get_object();
  if (auto error = read_inputs(object.if_contains("input"), out.inputs)) {
    return error;
  }
  if (const auto* format = object.if_contains("encoding_format"); format && !format->is_null()) {
    if (!format->is_string()) {
      return wrong_type("encoding_format", "\"float\" or \"base64\"", *format);
    }
    if (format->get_string() != "float" && format->get_string() != "base64") {
      return invalid_request(fmt::format("'encoding_format' is '{}'; it must be \"float\" or \"base64\"",
                                         std::string_view(format->get_string())),
                             "encoding_format");
    }
    out.base64 = format->get_string() == "base64";
  }
  if (const auto* dimensions = object.if_contains("dimensions"); dimensions && !dimensions->is_null()) {
    if (!dimensions->is_int64() && !dimensions->is_uint64()) {
      return wrong_type("dimensions", "an integer", *dimensions);
    }
    // A number past int64 is as much too large as any other the model cannot give.
    const std::int64_t n = dimensions->is_int64() ? dimensions->get_int64() : INT64_MAX;
    if (n < 1) {
      return invalid_request(fmt::format("'dimensions' is {}; it must be at least 1", n), "dimensions");
    }
    out.dimensions = n;
  }
  if (const auto* user = object.if_contains("user"); user && !user->is_null() && !user->is_string()) {
    return wrong_type("user", "a string", *user);
  }
  return std::nullopt;
}

}  // namespace infergate::openai
