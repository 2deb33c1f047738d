#include "gateway/sse_relay.hpp"

#include <boost/container/small_vector.hpp>

#include <utility>

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
      drop_held = drop_held || event_start == 0;
      cuts.emplace_back(event_start, end);
    }
    event_start = end;
  };
  auto glance_line = [this](std::string_view value) {
    const openai::LineGlance line = openai::glance_stream_line(value);
    glanced_ = line.glance;
    glanced_end_ = line.line_end != std::string_view::npos ? value.data() + line.line_end : nullptr;
    return line.line_end;
  };
  // Where the glance finds a line's end in the same pass, the parser asks it where each data line
  // ends; elsewhere that would be two passes and a call more than the parser's own search and a
  // glance of the event.
  static const bool one_pass = openai::glance_stream_line_is_one_pass();
  const std::size_t complete = one_pass ? parser_.feed(bytes, on_event, glance_line) : parser_.feed(bytes, on_event);
  glanced_end_ = nullptr;  // it points into `bytes`, which do not outlive this call
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
  // The data of an event of one line ends where the line glanced last ended (data kept in the
  // parser's own buffer lies elsewhere).
  const bool glanced = glanced_end_ != nullptr && event.data.data() + event.data.size() == glanced_end_;
  glanced_end_ = nullptr;
  if (event.data == "[DONE]") {
    return false;
  }
  const openai::ChunkGlance glance = glanced ? glanced_ : openai::glance_stream_chunk(event.data);
  if (glance.text) {
    first_token_ns_ = first_token_ns_ != 0 ? first_token_ns_ : now_ns;
    last_token_ns_ = now_ns;
    ++text_events_;
  }
  if (!glance.needs_parse) {
    return false;
  }
  const std::optional<openai::ChunkUsage> chunk = openai::read_chunk_usage(event.data);
  if (chunk && chunk->usage) {
    usage_ = chunk->usage;
    return strip_usage_ && !chunk->has_choices;
  }
  return false;
}

}  // namespace infergate::gateway
