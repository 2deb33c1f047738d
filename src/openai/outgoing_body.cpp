#include "openai/outgoing_body.hpp"

#include <algorithm>
#include <utility>

#include <boost/container/small_vector.hpp>
#include <boost/json/parse.hpp>
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

struct ModelValue {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool is_string = false;
};
using ModelValues = boost::container::small_vector<ModelValue, 1>;

// Whether a member name, quotes included, is "model": written plainly, or with escapes (which
// the request view decodes, so a client could route on one the splice missed).
bool names_model(std::string_view name) {
  if (name == R"("model")") {
    return true;
  }
  if (name.find('\\') == std::string_view::npos) {
    return false;
  }
  boost::system::error_code ec;
  const json::value decoded = json::parse(name, ec);
  return !ec && decoded.is_string() && decoded.get_string() == "model";
}

// Just past the last byte of a value followed by blanks up to `end` (a comma or the closing brace).
std::size_t value_end(std::string_view text, std::size_t end) {
  while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\n' || text[end - 1] == '\r')) {
    --end;
  }
  return end;
}

// The values of the top-level members named "model", in order: of every one, or (`first_only`)
// of the first written plainly, when its value is a string. The body is valid JSON: the request
// view read it first.
ModelValues find_model_values(std::string_view body, bool first_only) {
  ModelValues values;
  int depth = 0;
  bool key_next = false;
  bool in_model = false;  // inside a model member's value, which ends at depth 1's next , or }
  for (std::size_t i = 0; i < body.size();) {
    const char c = body[i];
    if (c == '"') {
      const std::size_t end = string_end(body, i);
      if (end == std::string_view::npos) {
        return {};
      }
      const std::string_view name = body.substr(i, end - i);
      if (depth == 1 && key_next) {
        key_next = false;
        if (first_only ? name == R"("model")" : names_model(name)) {
          const std::size_t colon = skip_space(body, end);
          if (colon >= body.size() || body[colon] != ':') {
            return {};
          }
          const std::size_t value = skip_space(body, colon + 1);
          const bool is_string = value < body.size() && body[value] == '"';
          if (first_only) {
            const std::size_t close = is_string ? string_end(body, value) : std::string_view::npos;
            return close == std::string_view::npos ? ModelValues{} : ModelValues{{value, close, true}};
          }
          values.push_back({value, value, is_string});
          in_model = true;
        }
      }
      i = end;
      continue;
    }
    if (depth == 1 && (c == ',' || c == '}')) {
      if (in_model) {
        values.back().end = value_end(body, i);
        in_model = false;
      }
      key_next = c == ',';
    }
    if (c == '{' || c == '[') {
      ++depth;
      key_next = depth == 1 && c == '{';
    } else if (c == '}' || c == ']') {
      --depth;
    }
    ++i;
  }
  return in_model ? ModelValues{} : values;
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

bool OutgoingBody::rename_model(std::string_view model, int members) {
  // One member named plainly, as nearly every client sends it: found without reading further.
  ModelValues values = members == 1 ? find_model_values(body_, true) : ModelValues{};
  if (values.empty()) {
    values = find_model_values(body_, false);
  }
  if (std::none_of(values.begin(), values.end(), [](const ModelValue& v) { return v.is_string; })) {
    return false;
  }
  const bool plain = std::none_of(model.begin(), model.end(),
                                  [](char c) { return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20; });
  if (plain) {
    model_.reserve(model.size() + 2);
    model_.append(1, '"').append(model).append(1, '"');
  } else {
    model_ = json::serialize(json::string(model));
  }
  if (values.size() == 1) {
    model_begin_ = values.front().begin;
    model_end_ = values.front().end;
  } else {
    // Every one renamed, so that the upstream reads the new name whichever it takes: the body is
    // copied, as only a client that repeats the name makes it.
    std::string rewritten;
    std::size_t at = 0;
    for (const ModelValue& v : values) {
      rewritten.append(body_.substr(at, v.begin - at)).append(model_);
      at = v.end;
    }
    rewritten.append(body_.substr(at));
    rewritten_ = std::move(rewritten);
    body_ = rewritten_;
    model_.clear();
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
