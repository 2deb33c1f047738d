#include "openai/outgoing_body.hpp"

#include <algorithm>
#include <utility>

#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

namespace infergate::openai {

namespace json = boost::json;

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

// Where the string value of the top-level "model" lies, quotes included: {begin, end}; {0, 0}
// when there is none.
std::pair<std::size_t, std::size_t> find_model_value(std::string_view body) {
  int depth = 0;
  bool key_next = false;
  for (std::size_t i = 0; i < body.size();) {
    const char c = body[i];
    if (c == '"') {
      const std::size_t end = string_end(body, i);
      if (end == std::string_view::npos) {
        return {0, 0};
      }
      if (depth == 1 && key_next) {
        key_next = false;
        if (body.substr(i, end - i) == "\"model\"") {
          std::size_t value = skip_space(body, end);
          if (value >= body.size() || body[value] != ':') {
            return {0, 0};
          }
          value = skip_space(body, value + 1);
          if (value >= body.size() || body[value] != '"') {
            return {0, 0};
          }
          const std::size_t value_end = string_end(body, value);
          return value_end == std::string_view::npos ? std::pair<std::size_t, std::size_t>{0, 0}
                                                     : std::pair{value, value_end};
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
  return {0, 0};
}

}  // namespace

void OutgoingBody::request_usage() {
  brace_ = body_.find('{');
  if (brace_ == std::string_view::npos) {
    return;
  }
  const std::size_t next = body_.find_first_not_of(" \t\r\n", brace_ + 1);
  const bool empty_object = next == std::string_view::npos || body_[next] == '}';
  usage_ = empty_object ? std::string_view(R"("stream_options":{"include_usage":true})")
                        : std::string_view(R"("stream_options":{"include_usage":true},)");
  assemble();
}

bool OutgoingBody::rename_model(std::string_view model) {
  const auto [begin, end] = find_model_value(body_);
  if (end == 0) {
    return false;
  }
  model_begin_ = begin;
  model_end_ = end;
  const bool plain = std::none_of(model.begin(), model.end(),
                                  [](char c) { return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20; });
  if (plain) {
    model_.reserve(model.size() + 2);
    model_.append(1, '"').append(model).append(1, '"');
  } else {
    model_ = json::serialize(json::string(model));
  }
  assemble();
  return true;
}

void OutgoingBody::assemble() {
  count_ = 0;
  std::size_t at = 0;
  if (!usage_.empty()) {
    pieces_[count_++] = body_.substr(0, brace_ + 1);
    pieces_[count_++] = usage_;
    at = brace_ + 1;
  }
  if (!model_.empty()) {
    pieces_[count_++] = body_.substr(at, model_begin_ - at);
    pieces_[count_++] = model_;
    at = model_end_;
  }
  pieces_[count_++] = body_.substr(at);
}

std::size_t OutgoingBody::size() const {
  std::size_t total = 0;
  for (const std::string_view piece : pieces()) {
    total += piece.size();
  }
  return total;
}

std::string OutgoingBody::joined() const {
  std::string out;
  out.reserve(size());
  for (const std::string_view piece : pieces()) {
    out.append(piece);
  }
  return out;
}

}  // namespace infergate::openai
