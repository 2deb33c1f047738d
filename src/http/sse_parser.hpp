#pragma once
// Incremental parser for text/event-stream (WHATWG HTML "server-sent events"). Bytes may be split
// anywhere, including between the CR and LF of a CRLF. Allocation-free in steady state: buffers
// are reused from event to event, and an event of one data line is handed over without a copy.
#include <string>
#include <string_view>

#include "core/function_ref.hpp"

namespace infergate::http {

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

  // Where the value of a data line ends: the offset in `value` (what follows "data:", up to the end
  // of the bytes fed) of its first CR or LF, npos when it holds none.
  using LineEnd = FunctionRef<std::size_t(std::string_view value)>;
  // The same, with the fast path over events of one data line asking `data_line_end` where that
  // line ends: a caller that looks at every value anyway can find its end in the same pass. An
  // event it is asked about and that turns out to be no such event is read line by line instead.
  std::size_t feed(std::string_view bytes, Callback on_event, LineEnd data_line_end);

  // Inside an `on_event` called from feed(): the offset in its `bytes` just past the blank line
  // that completed the event. npos inside finish().
  [[nodiscard]] std::size_t position() const { return position_; }

  // End of the body. A final event not followed by a blank line is still delivered: the spec says
  // to drop it, but a server that omits the last newline should not lose its usage chunk.
  void finish(Callback on_event);

  // Lines that were neither fields nor comments and were ignored, for diagnostics.
  [[nodiscard]] std::size_t ignored_lines() const { return ignored_lines_; }

 private:
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
  bool last_was_cr_ = false;
  std::size_t ignored_lines_ = 0;
  std::size_t position_ = std::string_view::npos;
};

}  // namespace infergate::http
