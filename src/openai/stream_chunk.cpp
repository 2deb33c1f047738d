#include "openai/stream_chunk.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <string_view>

#include "core/json_error.hpp"

namespace infergate::openai {

namespace json = boost::json;

namespace {

std::size_t string_size(const json::object& object, std::string_view key) {
  const auto* v = object.if_contains(key);
  return v != nullptr && v->is_string() ? v->get_string().size() : 0;
}

std::int64_t int_field(const json::object& object, std::string_view key) {
  const auto* v = object.if_contains(key);
  if (v == nullptr) {
    return 0;
  }
  if (v->is_int64()) {
    return v->get_int64();
  }
  if (v->is_uint64()) {
    return static_cast<std::int64_t>(v->get_uint64());
  }
  return 0;
}

void read_usage(const json::object& object, ChunkView& out) {
  const json::value* usage = object.if_contains("usage");
  if (usage == nullptr || !usage->is_object()) {
    // Groq reports usage under x_groq.usage on the last chunk.
    if (const auto* groq = object.if_contains("x_groq"); groq && groq->is_object()) {
      usage = groq->get_object().if_contains("usage");
    }
  }
  if (usage != nullptr && usage->is_object()) {
    const auto& u = usage->get_object();
    out.usage = Usage{int_field(u, "prompt_tokens"), int_field(u, "completion_tokens")};
  }
}

void read_trace(const json::object& object, ChunkView& out) {
  const auto* trace = object.if_contains("infergate_trace");
  if (trace != nullptr && trace->is_object()) {
    const auto& t = trace->get_object();
    out.trace = ServerTrace{int_field(t, "arrival_ns"), int_field(t, "first_token_ns"), int_field(t, "last_token_ns")};
  }
}

void append_string(const json::object& object, std::string_view key, std::string* content) {
  if (const auto* v = object.if_contains(key); content != nullptr && v != nullptr && v->is_string()) {
    content->append(v->get_string());
  }
}

std::optional<std::string> read_object(std::string_view text, bool streamed, ChunkView& out, std::string* content) {
  out = ChunkView{};
  // Chunks are small: parse into a stack buffer instead of the heap (this runs once per token).
  unsigned char scratch[4096];
  json::monotonic_resource resource(scratch, sizeof(scratch));
  std::string error;
  json::value parsed = parse_json(text, error, &resource);
  if (!error.empty()) {
    return "not valid JSON (" + error + ")";
  }
  if (!parsed.is_object()) {
    return "not a JSON object";
  }
  const auto& object = parsed.get_object();
  if (const auto* error = object.if_contains("error"); error && !error->is_null()) {
    if (error->is_object()) {
      const auto* message = error->get_object().if_contains("message");
      out.error = message && message->is_string() ? std::string(message->get_string()) : json::serialize(*error);
    } else {
      out.error = json::serialize(*error);
    }
    return std::nullopt;
  }
  if (const auto* choices = object.if_contains("choices"); choices && choices->is_array()) {
    out.has_choices = !choices->get_array().empty();
    for (const auto& choice : choices->get_array()) {
      if (!choice.is_object()) {
        continue;
      }
      const auto& c = choice.get_object();
      out.text_bytes += string_size(c, "text");
      append_string(c, "text", content);
      if (const auto* part = c.if_contains(streamed ? "delta" : "message"); part && part->is_object()) {
        const auto& p = part->get_object();
        out.text_bytes += string_size(p, "content") + string_size(p, "reasoning_content") + string_size(p, "reasoning");
        append_string(p, "content", content);
      }
      if (const auto* finish = c.if_contains("finish_reason"); finish && finish->is_string()) {
        out.finish_reason = std::string(finish->get_string());
      }
    }
  }
  read_usage(object, out);
  read_trace(object, out);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> parse_stream_chunk(std::string_view data, ChunkView& out, std::string* content) {
  return read_object(data, true, out, content);
}

std::optional<std::string> parse_completion_response(std::string_view body, ChunkView& out, std::string* content) {
  return read_object(body, false, out, content);
}

}  // namespace infergate::openai
