#pragma once
// A request trace to replay (`bench --replay FILE`): one JSON object a line, in the format of
// Mooncake's traces that NVIDIA AIPerf also reads, each request sent at its own time:
//   {"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, ...]}
// `timestamp` is in milliseconds (from any origin); `input_length` is the prompt's tokens, or a
// `text_input` (or `prompt`) string gives the prompt itself; `output_length` the tokens to ask for
// (--output-tokens where absent). `hash_ids` name the prompt's blocks of kTraceBlockTokens tokens:
// requests whose ids agree share those blocks' text, as their prompts shared a prefix when traced
// (tokens past the last block are the request's own).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace infergate::bench {

constexpr int kTraceBlockTokens = 512;  // Mooncake's block size

struct TraceRequest {
  double at_s = 0;  // from the trace's first request
  int input_tokens = 0;
  std::optional<int> output_tokens;
  std::vector<std::uint64_t> hash_ids;
  std::optional<std::string> text;  // the prompt as written, instead of input_tokens made up
};

// The trace's requests in the order of their timestamps (file order among equal ones). Throws
// std::runtime_error naming the file, line and field at fault.
std::vector<TraceRequest> load_trace(const std::string& path);

}  // namespace infergate::bench
