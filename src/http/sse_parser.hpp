#pragma once
// Incremental parser for text/event-stream (WHATWG HTML "server-sent events"). Bytes may be split
// anywhere, including between the CR and LF of a CRLF. Allocation-free in steady state: buffers
// are reused from event to event, and an event of one data line is handed over without a copy.
#include <cstddef>
#include <string>
#include <string_view>

#include "core/function_ref.hpp"

namespace infergate::http {

// The longest event a reader waits for the end of. Real events are a few hundred bytes to a few
// kilobytes; a server that sends bytes with no blank line (a broken one, or a body that is not an
// event stream) would otherwise grow the reader's memory for as long as it sends.
inline constexpr std::size_t kMaxSseEventBytes = std::size_t{8} << 20;

struct SseEvent {
  std::string_view event;  // "" when the stream did not name one ("message" per the spec)
  std::string_view data;   // multiple data lines joined by '\n'
  std::string_view id;
};

class SseParser {
 public:
  using Callback = FunctionRef<void(const SseEvent&)>;

  // Feeds the next bytes of the body; calls `on_event` for every event they complete. Returns the
  // offset in `bytes` just past the last blank line (the end of an event, or of a block of
  // comments), npos when they hold none: a proxy can forward everything before it unchanged.
  std::size_t feed(std::string_view bytes, Callback on_event);

  // At the start of an event (the stream's start, or after a blank line) at `pos` in the bytes
  // fed: how many bytes of whole events there the caller took itself (0: none). A caller that
  // looks at every event anyway can take a run of the usual ones in one pass; the parser then
  // goes on after them.
  using TakeRun = FunctionRef<std::size_t(std::size_t pos)>;
  // The same, offering each event start to `take_run` first. Events it takes are not passed to
  // `on_event`.
  std::size_t feed(std::string_view bytes, Callback on_event, TakeRun take_run);

  // Inside an `on_event` called from feed(): the offset in its `bytes` just past the blank line
  // that completed the event. npos inside finish().
  [[nodiscard]] std::size_t position() const { return position_; }
  // Inside an `on_event` called from feed(): the offset in its `bytes` where the event began, just
  // past the blank line before it (a block of comments before it is not part of it); 0 also when
  // it began in bytes fed before.
  [[nodiscard]] std::size_t event_begin() const { return event_begin_; }

  // End of the body. A final event not followed by a blank line is still delivered: the spec says
  // to drop it, but a server that omits the last newline should not lose its usage chunk.
  void finish(Callback on_event);

  // Bytes fed since the last blank line: the event still waiting for its end, which the parser
  // holds. A reader gives up on the stream past kMaxSseEventBytes (or a limit of its own).
  [[nodiscard]] std::size_t unfinished_bytes() const { return unfinished_; }

  // Lines that were neither fields nor comments and were ignored, for diagnostics.
  [[nodiscard]] std::size_t ignored_lines() const { return ignored_lines_; }

 private:
  // feed() with `take_run` or without (null).
  std::size_t feed_events(std::string_view bytes, Callback on_event, const TakeRun* take_run);
  // `in_bytes`: the line is a view of the bytes being fed, not of line_.
  void process_line(std::string_view line, bool in_bytes, Callback on_event);
  void dispatch(Callback on_event);
  // Copies a data line still held as a view of the fed bytes into data_.
  void materialize();

  std::string line_;
  std::string_view data_view_;  // the event's only data line, when it lies in the bytes being fed
  std::string data_;
  std::string event_;
  std::string id_;
  bool has_data_ = false;
  // No line since the last blank one: what follows begins an event (a comment or an id line
  // before an event's data belongs to that event).
  bool at_event_start_ = true;
  bool last_was_cr_ = false;
  std::size_t ignored_lines_ = 0;
  std::size_t unfinished_ = 0;
  std::size_t position_ = std::string_view::npos;
  std::size_t event_begin_ = 0;
};

}  // namespace infergate::http
