#pragma once
// The Responses API's stream (POST /v1/responses), as a proxy reads it: events named by their type
// ("event: response.output_text.delta", the same in the data's "type"), the token usage only in the
// last one, under "response". A proxy forwards every event unchanged and needs two things of them:
// which carry generated tokens, and the usage at the end.
#include <optional>
#include <string_view>

#include "openai/stream_chunk.hpp"

namespace infergate::openai {

struct ResponseEvent {
  // A delta of generated output: text, a refusal, reasoning, a tool call's arguments.
  bool generated = false;
  // The usage of the response the stream ends with (response.completed, .incomplete or .failed).
  std::optional<Usage> usage;
};

// `name`: the event's "event" field, "" where the stream did not name it (the data's "type" then
// says, at the cost of a parse).
ResponseEvent read_response_event(std::string_view name, std::string_view data);

}  // namespace infergate::openai
