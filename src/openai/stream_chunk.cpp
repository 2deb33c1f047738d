#include "openai/stream_chunk.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "core/json_error.hpp"

namespace infergate::openai {

namespace json = boost::json;

namespace {

std::size_t string_size(const json::object& object, std::string_view key) {
  const auto* v = object.if_contains(key);
  return v != nullptr && v->is_string() ? v->get_string().size() : 0;
}

std::string_view string_view_of(const json::object& object, std::string_view key) {
  const auto* v = object.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view{};
}

// A tool call's generated text: the function's name and its arguments, as far as they have come.
std::size_t function_call_size(const json::object& call) {
  return string_size(call, "name") + string_size(call, "arguments");
}

// The text of a chat message's or delta's tool calls (an agent's turn may generate nothing else).
std::size_t tool_calls_size(const json::object& part) {
  std::size_t size = 0;
  if (const auto* calls = part.if_contains("tool_calls"); calls && calls->is_array()) {
    for (const auto& call : calls->get_array()) {
      const auto* function = call.is_object() ? call.get_object().if_contains("function") : nullptr;
      if (function != nullptr && function->is_object()) {
        size += function_call_size(function->get_object());
      }
    }
  }
  return size;
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

// The first of `names` the object holds: the Chat Completions API's name, then the Responses API's.
std::int64_t count_field(const json::object& object, std::initializer_list<std::string_view> names) {
  for (const std::string_view name : names) {
    if (object.contains(name)) {
      return int_field(object, name);
    }
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
    out.usage = usage_from_object(usage->get_object());
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

// An error object's message, or the whole of it.
std::string error_text(const json::value& error) {
  if (error.is_object()) {
    const auto* message = error.get_object().if_contains("message");
    return message && message->is_string() ? std::string(message->get_string()) : json::serialize(error);
  }
  return json::serialize(error);
}

// A response object of the Responses API (whole, or in a stream's last event): its output text,
// usage, and how it ended, as a finish_reason.
void read_response(const json::object& response, ChunkView& out, std::string* content, bool with_text) {
  if (const auto* status = response.if_contains("status"); status && status->is_string()) {
    const std::string_view s = status->get_string();
    out.finish_reason = s == "completed" ? "stop" : s == "incomplete" ? "length" : std::string(s);
  }
  if (const auto* error = response.if_contains("error"); error && !error->is_null()) {
    out.error = error_text(*error);
  }
  read_usage(response, out);
  const auto* output = response.if_contains("output");
  if (!with_text || output == nullptr || !output->is_array()) {
    return;
  }
  for (const auto& item : output->get_array()) {
    if (item.is_object() && string_view_of(item.get_object(), "type") == "function_call") {
      out.text_bytes += function_call_size(item.get_object());
      continue;
    }
    const auto* parts = item.is_object() ? item.get_object().if_contains("content") : nullptr;
    if (parts == nullptr || !parts->is_array()) {
      continue;
    }
    for (const auto& part : parts->get_array()) {
      if (part.is_object()) {
        out.text_bytes += string_size(part.get_object(), "text");
        append_string(part.get_object(), "text", content);
      }
    }
  }
}

// One event of the Responses API's stream, by its "type".
void read_response_event(const json::object& event, ChunkView& out, std::string* content) {
  const auto* type_field = event.if_contains("type");
  const std::string_view type =
      type_field != nullptr && type_field->is_string() ? std::string_view(type_field->get_string()) : "";
  if (type.starts_with("response.") && type.ends_with(".delta")) {
    out.text_bytes += string_size(event, "delta");
    if (type == "response.output_text.delta") {
      append_string(event, "delta", content);
    }
  } else if (type == "response.completed" || type == "response.incomplete" || type == "response.failed") {
    if (const auto* response = event.if_contains("response"); response && response->is_object()) {
      read_response(response->get_object(), out, nullptr, false);
    }
    if (type == "response.failed" && !out.error) {
      out.error = "the response failed";
    }
  } else if (type == "error") {
    out.error = error_text(event);
  }
}

enum class Shape { chunk, whole, response_event, whole_response };

std::optional<std::string> read_object(std::string_view text, Shape shape, ChunkView& out, std::string* content) {
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
  if (const auto* error = object.if_contains("error"); error && !error->is_null() && shape != Shape::whole_response) {
    out.error = error_text(*error);
    return std::nullopt;
  }
  read_trace(object, out);
  if (shape == Shape::response_event) {
    read_response_event(object, out, content);
    return std::nullopt;
  }
  if (shape == Shape::whole_response) {
    read_response(object, out, content, true);
    return std::nullopt;
  }
  const bool streamed = shape == Shape::chunk;
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
        out.text_bytes += string_size(p, "content") + string_size(p, "reasoning_content") +
                          string_size(p, "reasoning") + tool_calls_size(p);
        append_string(p, "content", content);
      }
      if (const auto* finish = c.if_contains("finish_reason"); finish && finish->is_string()) {
        out.finish_reason = std::string(finish->get_string());
      }
    }
  }
  read_usage(object, out);
  return std::nullopt;
}

}  // namespace

Usage usage_from_object(const json::object& usage) {
  return Usage{count_field(usage, {"prompt_tokens", "input_tokens"}),
               count_field(usage, {"completion_tokens", "output_tokens"})};
}

std::optional<std::string> parse_stream_chunk(std::string_view data, ChunkView& out, std::string* content) {
  return read_object(data, Shape::chunk, out, content);
}

std::optional<std::string> parse_completion_response(std::string_view body, ChunkView& out, std::string* content) {
  return read_object(body, Shape::whole, out, content);
}

std::optional<std::string> parse_response_stream_event(std::string_view data, ChunkView& out, std::string* content) {
  return read_object(data, Shape::response_event, out, content);
}

std::optional<std::string> parse_response_object(std::string_view body, ChunkView& out, std::string* content) {
  return read_object(body, Shape::whole_response, out, content);
}

}  // namespace infergate::openai
