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

std::string* text_of(Reply* reply) {
  return reply != nullptr ? &reply->text : nullptr;
}

// The text of a chat message's or delta's tool calls (an agent's turn may generate nothing else),
// in one walk that, with `reply`, also adds them to it: a delta's index names its call (its first
// names the call's id and function, the rest add arguments); a whole message's are in order.
std::size_t read_tool_calls(const json::object& part, Reply* reply) {
  const auto* calls = part.if_contains("tool_calls");
  if (calls == nullptr || !calls->is_array()) {
    return 0;
  }
  std::size_t size = 0;
  std::size_t position = 0;
  for (const auto& item : calls->get_array()) {
    const json::object* call = item.if_object();
    const std::size_t at = position++;
    const auto* value = call != nullptr ? call->if_contains("function") : nullptr;
    const json::object* function = value != nullptr ? value->if_object() : nullptr;
    if (function != nullptr) {
      size += function_call_size(*function);
    }
    if (reply == nullptr || call == nullptr) {
      continue;
    }
    const auto* index = call->if_contains("index");
    // An index past any real answer's calls is no call's: it must not size the list.
    constexpr std::int64_t kMostCalls = 128;
    const std::int64_t named = index != nullptr && index->is_int64() ? index->get_int64() : -1;
    if (index != nullptr && (named < 0 || named >= kMostCalls)) {
      continue;
    }
    const std::size_t slot = index != nullptr ? static_cast<std::size_t>(named) : at;
    if (slot >= reply->tool_calls.size()) {
      reply->tool_calls.resize(slot + 1);  // a call's first delta
    }
    ReplyToolCall& out = reply->tool_calls[slot];
    if (const std::string_view id = string_view_of(*call, "id"); !id.empty()) {
      out.id = id;
    }
    if (function != nullptr) {
      if (const std::string_view name = string_view_of(*function, "name"); !name.empty()) {
        out.name = name;
      }
      append_string(*function, "arguments", &out.arguments);
    }
  }
  return size;
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
// usage, and how it ended, as a finish_reason; with `reply`, its function calls (and, `with_text`,
// its text).
void read_response(const json::object& response, ChunkView& out, Reply* reply, bool with_text) {
  if (const auto* status = response.if_contains("status"); status && status->is_string()) {
    const std::string_view s = status->get_string();
    out.finish_reason = s == "completed" ? "stop" : s == "incomplete" ? "length" : std::string(s);
  }
  if (const auto* error = response.if_contains("error"); error && !error->is_null()) {
    out.error = error_text(*error);
  }
  read_usage(response, out);
  const auto* output = response.if_contains("output");
  if (output == nullptr || !output->is_array()) {
    return;
  }
  for (const auto& item : output->get_array()) {
    if (item.is_object() && string_view_of(item.get_object(), "type") == "function_call") {
      const auto& call = item.get_object();
      if (reply != nullptr) {
        reply->tool_calls.push_back(ReplyToolCall{std::string(string_view_of(call, "call_id")),
                                                  std::string(string_view_of(call, "name")),
                                                  std::string(string_view_of(call, "arguments"))});
      }
      if (const std::size_t size = with_text ? function_call_size(call) : 0; size > 0) {
        out.text_bytes += size;
        out.tool_call = true;
      }
      continue;
    }
    const auto* parts = with_text && item.is_object() ? item.get_object().if_contains("content") : nullptr;
    if (parts == nullptr || !parts->is_array()) {
      continue;
    }
    for (const auto& part : parts->get_array()) {
      if (part.is_object()) {
        out.text_bytes += string_size(part.get_object(), "text");
        append_string(part.get_object(), "text", text_of(reply));
      }
    }
  }
}

// One event of the Responses API's stream, by its "type".
void read_response_event(const json::object& event, ChunkView& out, Reply* reply) {
  const auto* type_field = event.if_contains("type");
  const std::string_view type =
      type_field != nullptr && type_field->is_string() ? std::string_view(type_field->get_string()) : "";
  if (type.starts_with("response.") && type.ends_with(".delta")) {
    out.text_bytes += string_size(event, "delta");
    out.tool_call = type == "response.function_call_arguments.delta" && out.text_bytes > 0;
    if (type == "response.output_text.delta") {
      append_string(event, "delta", text_of(reply));
    }
  } else if (type == "response.completed" || type == "response.incomplete" || type == "response.failed") {
    if (const auto* response = event.if_contains("response"); response && response->is_object()) {
      read_response(response->get_object(), out, reply, false);
    }
    if (type == "response.failed" && !out.error) {
      out.error = "the response failed";
    }
  } else if (type == "error") {
    out.error = error_text(event);
  }
}

enum class Shape { chunk, whole, response_event, whole_response };

std::optional<std::string> read_object(std::string_view text, Shape shape, ChunkView& out, Reply* reply) {
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
    read_response_event(object, out, reply);
    return std::nullopt;
  }
  if (shape == Shape::whole_response) {
    read_response(object, out, reply, true);
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
      append_string(c, "text", text_of(reply));
      if (const auto* part = c.if_contains(streamed ? "delta" : "message"); part && part->is_object()) {
        const auto& p = part->get_object();
        const std::size_t calls = read_tool_calls(p, reply);
        out.text_bytes +=
            string_size(p, "content") + string_size(p, "reasoning_content") + string_size(p, "reasoning") + calls;
        out.tool_call = out.tool_call || calls > 0;
        append_string(p, "content", text_of(reply));
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

std::optional<std::string> parse_stream_chunk(std::string_view data, ChunkView& out, Reply* reply) {
  return read_object(data, Shape::chunk, out, reply);
}

std::optional<std::string> parse_completion_response(std::string_view body, ChunkView& out, Reply* reply) {
  return read_object(body, Shape::whole, out, reply);
}

std::optional<std::string> parse_response_stream_event(std::string_view data, ChunkView& out, Reply* reply) {
  return read_object(data, Shape::response_event, out, reply);
}

std::optional<std::string> parse_response_object(std::string_view body, ChunkView& out, Reply* reply) {
  return read_object(body, Shape::whole_response, out, reply);
}

}  // namespace infergate::openai
