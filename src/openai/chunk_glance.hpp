#pragma once
// How a proxy looks at the events of a stream it forwards, without parsing them: one event, the
// data line of one, or a run of them.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace infergate::openai {

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

// The glance of an event's data line and where that line ends, found in one pass: what a run
// (below) does with each line, here for tests and benchmarks. `line` is what follows "data:", up
// to the end of the bytes read: `glance` is glance_stream_chunk of its bytes before the first CR or
// LF, `line_end` that break's offset (npos when it holds none, and the glance is of all of it).
struct LineGlance {
  ChunkGlance glance;
  std::size_t line_end = std::string_view::npos;
};
LineGlance glance_stream_line(std::string_view line);
// The same in two passes (http::first_line_break, then glance_stream_chunk): what
// glance_stream_line falls back to where the CPU lacks AVX-512BW, and its test oracle.
LineGlance glance_stream_line_two_passes(std::string_view line);

// The usual events at the start of `bytes`, glanced in one pass: each of one data line ("data:",
// an optional space, the value, a line break) and a blank line, the breaks CR, LF or CRLF. The run
// takes them while they are whole; it stops before the first that is anything else (a comment, an
// id or event field, a second data line) or that the bytes cut short, and after the first that
// needs a full parse, which is left to the caller. A proxy forwards every event: one call per
// read, not one per event.
struct EventRun {
  std::size_t end = 0;           // just past the last event taken (its blank line); 0: none was
  std::int64_t text_events = 0;  // of the events taken, those that carry generated text
  // Whether the run stopped after the last event taken because it needs a full parse; that
  // event's offset in `bytes`, and its data.
  bool parse_last = false;
  std::size_t last_begin = 0;
  std::string_view last_data;
};
EventRun glance_event_run(std::string_view bytes);
// The same with each line found and glanced by glance_stream_line_two_passes: what
// glance_event_run is where the CPU lacks AVX-512BW.
EventRun glance_event_run_two_passes(std::string_view bytes);

}  // namespace infergate::openai
