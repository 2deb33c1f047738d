#include "sim/response_format.hpp"

#include <fmt/format.h>

#include <iterator>

#include "sim/text_generator.hpp"

namespace infergate::sim {

namespace {

enum class Stage { in_progress, done };

void begin_event(std::string& out, std::string_view type, int& sequence) {
  fmt::format_to(std::back_inserter(out), R"(event: {}
data: {{"type":"{}","sequence_number":{})",
                 type, type, sequence++);
}

void end_event(std::string& out) {
  out += "}\n\n";
}

std::string_view final_status(const ResponseAnswer& a) {
  return a.incomplete ? "incomplete" : "completed";
}

std::string message_id(const ResponseAnswer& a) {
  return fmt::format("msg{}", a.id.substr(a.id.find('-')));
}

std::string function_call_id(const ResponseAnswer& a) {
  return fmt::format("fc{}", a.id.substr(a.id.find('-')));
}

void append_function_call(std::string& out, const ResponseAnswer& a, Stage stage) {
  const ToolCallAnswer& call = *a.tool_call;
  fmt::format_to(std::back_inserter(out),
                 R"({{"type":"function_call","id":"{}","call_id":"{}","name":{},"arguments":")", function_call_id(a),
                 call.call_id, function_name_json(call));
  if (stage == Stage::done) {
    append_arguments(out, call, 0, call.output_tokens);
  }
  fmt::format_to(std::back_inserter(out), R"(","status":"{}"}})",
                 stage == Stage::done ? final_status(a) : "in_progress");
}

void append_text_part(std::string& out, const ResponseAnswer& a) {
  out += R"({"type":"output_text","text":")";
  append_output(a.seed, 0, a.output_tokens, out);
  out += R"(","annotations":[]})";
}

void append_message(std::string& out, const ResponseAnswer& a, Stage stage) {
  fmt::format_to(std::back_inserter(out),
                 R"({{"type":"message","id":"{}","status":"{}","role":"assistant","content":[)", message_id(a),
                 stage == Stage::done ? final_status(a) : "in_progress");
  if (stage == Stage::done) {
    append_text_part(out, a);
  }
  out += "]}";
}

void append_response(std::string& out, const ResponseAnswer& a, Stage stage) {
  const bool done = stage == Stage::done;
  fmt::format_to(
      std::back_inserter(out),
      R"({{"id":"{}","object":"response","created_at":{},"status":"{}","error":null,"incomplete_details":{},)"
      R"("model":{},"output":[)",
      a.id, a.created_at, done ? final_status(a) : "in_progress",
      done && a.incomplete ? R"({"reason":"max_output_tokens"})" : "null", a.model_json);
  if (done && a.tool_call != nullptr) {
    append_function_call(out, a, Stage::done);
  } else if (done) {
    append_message(out, a, Stage::done);
  }
  out += R"(],"usage":)";
  if (done && a.usage) {
    fmt::format_to(std::back_inserter(out),
                   R"({{"input_tokens":{},"input_tokens_details":{{"cached_tokens":0}},"output_tokens":{},)"
                   R"("output_tokens_details":{{"reasoning_tokens":0}},"total_tokens":{}}})",
                   a.input_tokens, a.output_tokens, a.input_tokens + a.output_tokens);
  } else {
    out += "null";
  }
  out += "}";
}

}  // namespace

std::string response_json(const ResponseAnswer& answer) {
  std::string out;
  append_response(out, answer, Stage::done);
  out.insert(out.size() - 1, answer.extra);
  return out;
}

void append_start_events(std::string& out, const ResponseAnswer& answer, int& sequence) {
  begin_event(out, "response.created", sequence);
  out += R"(,"response":)";
  append_response(out, answer, Stage::in_progress);
  end_event(out);
  if (answer.tool_call != nullptr) {
    return;
  }
  begin_event(out, "response.output_item.added", sequence);
  out += R"(,"output_index":0,"item":)";
  append_message(out, answer, Stage::in_progress);
  end_event(out);
  begin_event(out, "response.content_part.added", sequence);
  fmt::format_to(std::back_inserter(out),
                 R"(,"item_id":"{}","output_index":0,"content_index":0,"part":{{"type":"output_text","text":"",)"
                 R"("annotations":[]}})",
                 message_id(answer));
  end_event(out);
}

void append_delta_event(std::string& out, const ResponseAnswer& answer, int& sequence, int first, int count) {
  if (answer.tool_call != nullptr) {
    if (first == 0) {
      begin_event(out, "response.output_item.added", sequence);
      out += R"(,"output_index":0,"item":)";
      append_function_call(out, answer, Stage::in_progress);
      end_event(out);
    }
    begin_event(out, "response.function_call_arguments.delta", sequence);
    fmt::format_to(std::back_inserter(out), R"(,"item_id":"{}","output_index":0,"delta":")", function_call_id(answer));
    append_arguments(out, *answer.tool_call, first, count);
    out += '"';
    end_event(out);
    return;
  }
  begin_event(out, "response.output_text.delta", sequence);
  fmt::format_to(std::back_inserter(out), R"(,"item_id":"{}","output_index":0,"content_index":0,"delta":")",
                 message_id(answer));
  append_output(answer.seed, first, count, out);
  out += '"';
  end_event(out);
}

void append_end_events(std::string& out, const ResponseAnswer& answer, int& sequence) {
  const bool call = answer.tool_call != nullptr;
  if (call) {
    begin_event(out, "response.function_call_arguments.done", sequence);
    fmt::format_to(std::back_inserter(out), R"(,"item_id":"{}","output_index":0,"arguments":")",
                   function_call_id(answer));
    append_arguments(out, *answer.tool_call, 0, answer.output_tokens);
  } else {
    begin_event(out, "response.output_text.done", sequence);
    fmt::format_to(std::back_inserter(out), R"(,"item_id":"{}","output_index":0,"content_index":0,"text":")",
                   message_id(answer));
    append_output(answer.seed, 0, answer.output_tokens, out);
  }
  out += '"';
  end_event(out);
  if (!call) {
    begin_event(out, "response.content_part.done", sequence);
    fmt::format_to(std::back_inserter(out), R"(,"item_id":"{}","output_index":0,"content_index":0,"part":)",
                   message_id(answer));
    append_text_part(out, answer);
    end_event(out);
  }
  begin_event(out, "response.output_item.done", sequence);
  out += R"(,"output_index":0,"item":)";
  if (call) {
    append_function_call(out, answer, Stage::done);
  } else {
    append_message(out, answer, Stage::done);
  }
  end_event(out);
  begin_event(out, answer.incomplete ? "response.incomplete" : "response.completed", sequence);
  out += R"(,"response":)";
  append_response(out, answer, Stage::done);
  out += answer.extra;
  end_event(out);
}

}  // namespace infergate::sim
