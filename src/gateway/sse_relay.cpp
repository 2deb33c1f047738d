#include "gateway/sse_relay.hpp"

#include <boost/container/small_vector.hpp>

#include <utility>

#include "openai/response_events.hpp"

namespace infergate::gateway {

void SseRelay::feed(std::string_view bytes, std::int64_t now_ns) {
  count_ = 0;
  joining_ = false;
  // Events to remove, as ranges of `bytes`; the first event completed here began in held_.
  boost::container::small_vector<std::pair<std::size_t, std::size_t>, 2> cuts;
  bool drop_held = false;
  // The LF of a CRLF whose CR ended the last read belongs to what went before: sent with it, or
  // removed with it.
  const bool lf_of_previous = ended_with_cr_ && held_.empty() && !bytes.empty() && bytes.front() == '\n';
  if (lf_of_previous && ended_in_cut_) {
    cuts.emplace_back(0, 1);
  }
  std::size_t event_start = lf_of_previous ? 1 : 0;
  auto on_event = [&](const http::SseEvent& event) {
    const std::size_t end = parser_.position();
    if (observe(event, now_ns)) {
      // From where the event began: a block of comments before it goes out.
      const std::size_t begin = parser_.event_begin();
      drop_held = drop_held || begin == 0;
      cuts.emplace_back(begin, end);
    }
    event_start = end;
  };
  // Runs of the usual events are glanced whole, in one pass each; what they cannot take (a
  // comment, an id, an event cut by the read's end) is read by the parser line by line.
  auto take_run = [&](std::size_t pos) -> std::size_t {
    std::size_t at = pos;
    for (;;) {
      const openai::EventRun run = openai::glance_event_run(bytes.substr(at));
      note_text(run.text_events, now_ns);
      if (run.parse_last && read_usage(run.last_data)) {
        cuts.emplace_back(at + run.last_begin, at + run.end);
      }
      at += run.end;
      if (!run.parse_last) {
        event_start = at != pos ? at : event_start;
        return at - pos;
      }
    }
  };
  // A run's glance knows the data-only chunks of the choices dialect.
  const std::size_t complete =
      dialect_ == EventDialect::choices ? parser_.feed(bytes, on_event, take_run) : parser_.feed(bytes, on_event);
  ended_with_cr_ = !bytes.empty() && bytes.back() == '\r';
  ended_in_cut_ = !cuts.empty() && cuts.back().second == bytes.size();
  if (complete == std::string_view::npos) {  // no event ended here: all of it waits
    if (cuts.empty()) {
      add(bytes.substr(0, event_start));
    }
    held_.append(bytes.substr(event_start));
    return;
  }
  // What was held back goes out now, from sending_, while held_ takes this read's unfinished end.
  std::swap(sending_, held_);
  if (!drop_held) {
    add(sending_);
  }
  std::size_t at = 0;
  for (const auto& [from, to] : cuts) {
    add(bytes.substr(at, from - at));
    at = to;
  }
  add(bytes.substr(at, complete - at));
  held_.assign(bytes.substr(complete));
}

void SseRelay::finish(std::int64_t now_ns) {
  bool drop = false;
  parser_.finish([&](const http::SseEvent& event) { drop = observe(event, now_ns) || drop; });
  if (!drop && !held_.empty()) {
    add(held_);
    add(held_.back() == '\n' || held_.back() == '\r' ? "\n" : "\n\n");
  }
}

void SseRelay::add(std::string_view piece) {
  if (piece.empty()) {
    return;
  }
  if (joining_) {
    joined_.append(piece);
    pieces_[0] = joined_;
    return;
  }
  if (count_ + 2 == pieces_.size()) {  // two places are kept for finish()
    joined_.clear();
    for (std::size_t i = 0; i < count_; ++i) {
      joined_.append(pieces_[i]);
    }
    joined_.append(piece);
    pieces_[0] = joined_;
    count_ = 1;
    joining_ = true;
    return;
  }
  pieces_[count_++] = piece;
}

bool SseRelay::observe(const http::SseEvent& event, std::int64_t now_ns) {
  if (event.data == "[DONE]") {
    return false;
  }
  if (dialect_ == EventDialect::responses) {
    const openai::ResponseEvent seen = openai::read_response_event(event.event, event.data);
    note_text(seen.generated ? 1 : 0, now_ns);
    usage_ = seen.usage ? seen.usage : usage_;
    return false;
  }
  const openai::ChunkGlance glance = openai::glance_stream_chunk(event.data);
  note_text(glance.text ? 1 : 0, now_ns);
  return glance.needs_parse && read_usage(event.data);
}

void SseRelay::note_text(std::int64_t events, std::int64_t now_ns) {
  if (events != 0) {
    first_token_ns_ = first_token_ns_ != 0 ? first_token_ns_ : now_ns;
    last_token_ns_ = now_ns;
    text_events_ += events;
  }
}

bool SseRelay::read_usage(std::string_view data) {
  const std::optional<openai::ChunkUsage> chunk = openai::read_chunk_usage(data);
  if (chunk && chunk->usage) {
    usage_ = chunk->usage;
    return strip_usage_ && !chunk->has_choices;
  }
  return false;
}

}  // namespace infergate::gateway
