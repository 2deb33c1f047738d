#include "openai/outgoing_body.hpp"

#include <algorithm>
#include <span>
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

// Whether the object that opens at `open` has no members: a member added after its brace then
// takes no comma.
bool empty_object(std::string_view text, std::size_t open) {
  const std::size_t next = skip_space(text, open + 1);
  return next >= text.size() || text[next] == '}';
}

// A member's value: from its first byte to just past its last.
struct MemberValue {
  std::size_t begin = 0;
  std::size_t end = 0;
};
using MemberValues = boost::container::small_vector<MemberValue, 1>;

// Whether a member name, quotes included, is `name` written plainly.
bool names_plainly(std::string_view quoted, std::string_view name) {
  return quoted.size() == name.size() + 2 && quoted.substr(1, name.size()) == name;
}

// Whether a member name, quotes included, is `name`: written plainly, or with escapes (which the
// request view decodes, so a client could route on one a splice missed).
bool names(std::string_view quoted, std::string_view name) {
  if (names_plainly(quoted, name)) {
    return true;
  }
  if (quoted.find('\\') == std::string_view::npos) {
    return false;
  }
  boost::system::error_code ec;
  const json::value decoded = json::parse(quoted, ec);
  return !ec && decoded.is_string() && decoded.get_string() == name;
}

// Just past the last byte of a value followed by blanks up to `end` (a comma or the closing brace).
std::size_t value_end(std::string_view text, std::size_t end) {
  while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\n' || text[end - 1] == '\r')) {
    --end;
  }
  return end;
}

// The values of the members named `name` of the object that opens at `open`, in order: of every
// one, or (`first_plain`) of the first written plainly. The body is valid JSON: the request view
// read it first.
MemberValues find_member_values(std::string_view body, std::size_t open, std::string_view name, bool first_plain) {
  MemberValues values;
  int depth = 0;
  bool key_next = false;
  bool in_value = false;  // inside a wanted member's value, which ends at depth 1's next , or }
  for (std::size_t i = open; i < body.size();) {
    const char c = body[i];
    if (c == '"') {
      const std::size_t end = string_end(body, i);
      if (end == std::string_view::npos) {
        return {};
      }
      const std::string_view quoted = body.substr(i, end - i);
      if (depth == 1 && key_next) {
        key_next = false;
        if (first_plain ? names_plainly(quoted, name) : names(quoted, name)) {
          const std::size_t colon = skip_space(body, end);
          if (colon >= body.size() || body[colon] != ':') {
            return {};
          }
          values.push_back({skip_space(body, colon + 1), 0});
          in_value = true;
        }
      }
      i = end;
      continue;
    }
    if (depth == 1 && (c == ',' || c == '}')) {
      if (in_value) {
        values.back().end = value_end(body, i);
        in_value = false;
        if (first_plain) {
          return values;
        }
      }
      key_next = c == ',';
    }
    if (c == '{' || c == '[') {
      ++depth;
      key_next = depth == 1 && c == '{';
    } else if ((c == '}' || c == ']') && --depth == 0) {
      break;
    }
    ++i;
  }
  return in_value ? MemberValues{} : values;
}

// `text` with each of `edits` (in order, none overlapping) put in place of the bytes it covers.
struct Edit {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string_view text;
};
std::string edited(std::string_view text, std::span<const Edit> edits) {
  std::string out;
  std::size_t at = 0;
  for (const Edit& e : edits) {
    out.append(text.substr(at, e.begin - at)).append(e.text);
    at = e.end;
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace

void OutgoingBody::request_usage(int stream_options_members) {
  brace_ = body_.find('{');
  if (brace_ == std::string_view::npos) {
    return;
  }
  const MemberValues options =
      stream_options_members > 0 ? find_member_values(body_, brace_, "stream_options", false) : MemberValues{};
  if (options.empty()) {
    usage_ = empty_object(body_, brace_) ? std::string_view(R"("stream_options":{"include_usage":true})")
                                         : std::string_view(R"("stream_options":{"include_usage":true},)");
    assemble();
    return;
  }
  // The client's own stream_options, each of them (whichever one the upstream takes): its
  // include_usage set, or added. Only a client that sends stream_options without asking for the
  // usage has its body copied.
  boost::container::small_vector<Edit, 2> edits;
  for (const MemberValue& option : options) {
    if (body_[option.begin] != '{') {  // null, or a value a later member overrides
      edits.push_back({option.begin, option.end, R"({"include_usage":true})"});
      continue;
    }
    const MemberValues flags = find_member_values(body_, option.begin, "include_usage", false);
    for (const MemberValue& flag : flags) {
      edits.push_back({flag.begin, flag.end, "true"});
    }
    if (flags.empty()) {
      edits.push_back({option.begin + 1, option.begin + 1,
                       empty_object(body_, option.begin) ? R"("include_usage":true)" : R"("include_usage":true,)"});
    }
  }
  rewritten_ = edited(body_, edits);
  body_ = rewritten_;
  assemble();
}

bool OutgoingBody::rename_model(std::string_view model, int members) {
  const std::size_t open = body_.find('{');
  if (open == std::string_view::npos) {
    return false;
  }
  // One member named plainly, as nearly every client sends it: found without reading further.
  MemberValues values = members == 1 ? find_member_values(body_, open, "model", true) : MemberValues{};
  if (values.empty()) {
    values = find_member_values(body_, open, "model", false);
  }
  if (std::none_of(values.begin(), values.end(), [&](const MemberValue& v) { return body_[v.begin] == '"'; })) {
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
    boost::container::small_vector<Edit, 2> edits;
    for (const MemberValue& v : values) {
      edits.push_back({v.begin, v.end, model_});
    }
    rewritten_ = edited(body_, edits);
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
