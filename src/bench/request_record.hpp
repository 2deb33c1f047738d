#pragma once
// Everything observed about one request, in CLOCK_MONOTONIC nanoseconds. Metrics are derived from
// these records afterwards, never during the run.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "openai/stream_chunk.hpp"

namespace infergate::bench {

// An event that carried generated text: when its bytes were read and how much text it carried.
struct TextEvent {
  std::int64_t ns;
  std::uint32_t bytes;
};

struct RequestRecord {
  std::uint64_t index = 0;
  std::uint32_t run = 1;            // which of --runs K
  double level = 0;                 // the --sweep or --find-max-load level it ran at (0: neither)
  std::uint64_t conversation = 0;   // its conversation (a single-turn request is its own)
  std::uint32_t turn = 0;           // 0-based turn within the conversation
  std::uint32_t model = 0;          // which of the workload's models it asked for
  std::int64_t due_ns = 0;          // when it was scheduled to be sent (closed loop: when a slot freed)
  std::int64_t dispatch_ns = 0;     // when the client got round to it (scheduling lag = this - due)
  std::int64_t sent_ns = 0;         // request bytes handed to the kernel
  std::int64_t first_token_ns = 0;  // 0 when no text arrived
  std::int64_t last_byte_ns = 0;
  int http_status = 0;
  std::string error_class;  // empty on success
  std::string error_message;
  int requested_input_tokens = 0;
  int requested_output_tokens = 0;
  std::uint32_t events = 0;  // every SSE event with data, text or not
  std::vector<TextEvent> text_events;
  bool called_tool = false;  // some of its text was a tool call (an agent's turn)
  std::optional<openai::Usage> usage;
  std::optional<openai::ServerTrace> trace;
  openai::Reply reply;  // the answer's text and tool calls, kept for multi-turn conversations only

  [[nodiscard]] bool ok() const { return error_class.empty(); }
  void fail(std::string error_class_, std::string message) {
    if (ok()) {
      error_class = std::move(error_class_);
      error_message = std::move(message);
    }
  }
};

// The earliest due time of `records`: the origin of their run's time axis (0 when there are none).
inline std::int64_t first_due(const std::vector<RequestRecord>& records) {
  const auto first =
      std::min_element(records.begin(), records.end(),
                       [](const RequestRecord& a, const RequestRecord& b) { return a.due_ns < b.due_ns; });
  return first == records.end() ? 0 : first->due_ns;
}

}  // namespace infergate::bench
