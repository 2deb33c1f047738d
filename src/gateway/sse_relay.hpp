#pragma once
// What the client gets of an upstream's event stream: the upstream's own bytes, unchanged (line
// endings, comments and ids included), except the usage-only chunk the gateway asked for on the
// client's behalf. Bytes go out as soon as the event they belong to is complete; an incomplete
// event at the end of a read is held back until its end arrives, so that a chunk to be removed
// was never partly sent. On the way it notes when text arrived and the token usage. Pure logic on
// bytes: the proxy feeds it each read.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "http/chunk_pieces.hpp"
#include "http/sse_parser.hpp"
#include "openai/chunk_glance.hpp"
#include "openai/chunk_usage.hpp"

namespace infergate::gateway {

// Which API's events a stream carries.
enum class EventDialect : std::uint8_t {
  choices,    // Chat Completions and Completions: data-only chunks with "choices", usage in the last
  responses,  // the Responses API: typed events, the usage in the last under "response"
};

class SseRelay {
 public:
  // `max_event_bytes`: the longest event held back waiting for its end. A Responses stream never
  // has a usage chunk to strip.
  explicit SseRelay(bool strip_usage, EventDialect dialect = EventDialect::choices,
                    std::size_t max_event_bytes = http::kMaxSseEventBytes)
      : strip_usage_(strip_usage && dialect == EventDialect::choices),
        dialect_(dialect),
        max_event_bytes_(max_event_bytes) {}

  // Takes these upstream bytes; `now_ns` stamps the text-carrying events among them. What the
  // client should receive for them is then pieces().
  void feed(std::string_view bytes, std::int64_t now_ns);
  // The end of the upstream body: adds to pieces() an event held back for want of its final blank
  // line, with that line added.
  void finish(std::int64_t now_ns);
  // What the client should receive for the last feed (and finish), in order: views of the bytes
  // fed and of what was held back from the read before (nothing copied, unless an unusual read
  // cuts out so many events that they are joined). At most http::kMaxChunkPieces; valid until the
  // next feed.
  [[nodiscard]] std::span<const std::string_view> pieces() const { return {pieces_.data(), count_}; }

  [[nodiscard]] std::int64_t first_token_ns() const { return first_token_ns_; }
  [[nodiscard]] std::int64_t last_token_ns() const { return last_token_ns_; }
  [[nodiscard]] const std::optional<openai::Usage>& usage() const { return usage_; }
  // Events that carried generated text: at least one token each, the count to charge when the
  // stream ends before its usage chunk.
  [[nodiscard]] std::int64_t text_events() const { return text_events_; }
  // The event held back has passed the longest allowed: the stream cannot go on, and nothing more
  // should be fed.
  [[nodiscard]] bool event_too_long() const { return parser_.unfinished_bytes() > max_event_bytes_; }
  [[nodiscard]] std::size_t max_event_bytes() const { return max_event_bytes_; }

 private:
  // Notes what the event tells; true when it is the usage chunk to remove.
  bool observe(const http::SseEvent& event, std::int64_t now_ns);
  // Counts `events` that carried text, arrived at `now_ns`.
  void note_text(std::int64_t events, std::int64_t now_ns);
  // Reads the usage of an event whose data needs a full parse; true when it is the usage chunk
  // to remove.
  bool read_usage(std::string_view data);

  void add(std::string_view piece);

  http::SseParser parser_;
  std::string held_;      // the start of an event whose end has not arrived yet
  std::string sending_;   // the last read's held_, while pieces() may show it
  std::string joined_;    // pieces() when there would be too many
  bool joining_ = false;  // pieces_[0] is joined_, and what comes next is appended to it
  std::array<std::string_view, http::kMaxChunkPieces> pieces_;
  std::size_t count_ = 0;
  bool ended_with_cr_ = false;  // the last read ended between the CR and LF of a line ending
  bool ended_in_cut_ = false;   // ... and what it ended was removed
  bool strip_usage_;
  EventDialect dialect_;
  std::size_t max_event_bytes_;
  std::int64_t first_token_ns_ = 0;
  std::int64_t last_token_ns_ = 0;
  std::int64_t text_events_ = 0;
  std::optional<openai::Usage> usage_;
};

}  // namespace infergate::gateway
