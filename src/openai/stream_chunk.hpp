#pragma once
// Client-side view of what a server sends back: one streamed chunk (the data of one SSE event) or a
// whole non-streamed response. Only what a benchmark or gateway needs is extracted; the rest of the
// JSON is left alone.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace infergate::openai {

struct Usage {
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
};

// infergate's ground truth from the simulator (request header x-infergate-trace: 1).
struct ServerTrace {
  std::int64_t arrival_ns = 0;
  std::int64_t first_token_ns = 0;
  std::int64_t last_token_ns = 0;
};

struct ChunkView {
  std::size_t text_bytes = 0;  // generated text in this event: content, reasoning or completion text
  bool has_choices = false;    // false for the usage-only chunk that include_usage adds at the end
  std::optional<Usage> usage;
  std::optional<std::string> finish_reason;
  std::optional<ServerTrace> trace;
  std::optional<std::string> error;  // the server sent an error object instead of a chunk
};

// A look at one streamed event without parsing it, for a proxy that forwards every event: whether
// it carries generated text, and whether it needs a full parse (usage, an error, a trace).
struct ChunkGlance {
  bool text = false;
  bool needs_parse = false;
};
ChunkGlance glance_stream_chunk(std::string_view data);
// What glance_stream_chunk picks from, for tests and benchmarks: the bytes 64 at a time (where the
// CPU has AVX-512BW: glance_has_64_byte_blocks(); else the next narrower), 32 at a time (AVX2:
// glance_has_32_byte_blocks(); else 16), 16 at a time (SSE2, every x86-64), and a memchr per colon
// (elsewhere; the others' test oracle).
bool glance_has_64_byte_blocks();
bool glance_has_32_byte_blocks();
ChunkGlance glance_stream_chunk_64(std::string_view data);
ChunkGlance glance_stream_chunk_32(std::string_view data);
ChunkGlance glance_stream_chunk_16(std::string_view data);
ChunkGlance glance_stream_chunk_scalar(std::string_view data);

// The glance of an event's data line and where that line ends, found in one pass, for a proxy that
// must find each line's end anyway. `line` is what follows "data:", up to the end of the bytes read:
// `glance` is glance_stream_chunk of its bytes before the first CR or LF, `line_end` that break's
// offset (npos when it holds none, and the glance is of all of it).
struct LineGlance {
  ChunkGlance glance;
  std::size_t line_end = std::string_view::npos;
};
LineGlance glance_stream_line(std::string_view line);
// Whether glance_stream_line is one pass on this CPU (AVX-512BW), and so worth calling instead of
// finding the line's end first and glancing at the event after.
bool glance_stream_line_is_one_pass();
// The same in two passes (http::first_line_break, then glance_stream_chunk): what
// glance_stream_line falls back to where the CPU lacks AVX-512BW, and its test oracle.
LineGlance glance_stream_line_two_passes(std::string_view line);

// Returns a description of the problem when `data` is not a JSON object. With `content`, the
// answer's text (chat content or completion text, not reasoning) is appended to it.
std::optional<std::string> parse_stream_chunk(std::string_view data, ChunkView& out, std::string* content = nullptr);

// Same extraction from a non-streamed chat.completion or text_completion body.
std::optional<std::string> parse_completion_response(std::string_view body, ChunkView& out,
                                                     std::string* content = nullptr);

}  // namespace infergate::openai
