#include "http/sse_parser.hpp"

#include "http/line_break.hpp"

namespace infergate::http {

namespace {

// The first CR or LF at or after `pos`.
std::size_t line_end(std::string_view bytes, std::size_t pos) {
  const std::size_t at = first_line_break(bytes.substr(pos));
  return at == std::string_view::npos ? at : pos + at;
}

// The end (past its blank line) of an event at `pos` made of one LF-terminated data line and
// nothing else, the usual event of an LLM stream; npos for anything else, which the line-by-line
// path below then reads.
std::size_t single_line_event(std::string_view bytes, std::size_t pos) {
  constexpr std::string_view kData = "data:";
  if (bytes.size() - pos < kData.size() + 2 || bytes.compare(pos, kData.size(), kData) != 0) {
    return std::string_view::npos;
  }
  const std::size_t value = pos + kData.size();
  const std::size_t at = first_line_break(bytes.substr(value));
  if (at == std::string_view::npos) {
    return at;
  }
  const std::size_t end = value + at;
  if (end + 1 >= bytes.size() || bytes[end] != '\n' || bytes[end + 1] != '\n') {
    return std::string_view::npos;
  }
  return end + 2;
}

}  // namespace

std::size_t SseParser::feed(std::string_view bytes, Callback on_event) {
  return feed_events(bytes, on_event, nullptr);
}

std::size_t SseParser::feed(std::string_view bytes, Callback on_event, TakeRun take_run) {
  return feed_events(bytes, on_event, &take_run);
}

std::size_t SseParser::feed_events(std::string_view bytes, Callback on_event, const TakeRun* take_run) {
  std::size_t pos = 0;
  std::size_t last_blank = std::string_view::npos;
  if (last_was_cr_ && !bytes.empty() && bytes.front() == '\n') {
    pos = 1;  // the LF of a CRLF split across two reads
  }
  last_was_cr_ = false;
  event_begin_ = line_.empty() && at_event_start_ ? pos : 0;
  while (pos < bytes.size()) {
    if (line_.empty() && at_event_start_) {
      // At the start of an event: the usual ones go out without the line-by-line machinery.
      if (take_run != nullptr) {
        if (const std::size_t taken = (*take_run)(pos); taken != 0) {
          pos = position_ = last_blank = event_begin_ = pos + taken;
          continue;
        }
      } else if (const std::size_t next = single_line_event(bytes, pos); next != std::string_view::npos) {
        std::string_view data = bytes.substr(pos + 5, next - 2 - (pos + 5));
        if (!data.empty() && data.front() == ' ') {
          data.remove_prefix(1);
        }
        position_ = last_blank = next;
        on_event(SseEvent{{}, data, id_});
        pos = event_begin_ = next;
        continue;
      }
    }
    const std::size_t end = line_end(bytes, pos);
    if (end == std::string_view::npos) {
      line_.append(bytes.substr(pos));
      break;
    }
    std::string_view line = bytes.substr(pos, end - pos);
    const bool in_bytes = line_.empty();
    if (!in_bytes) {
      line_.append(line);
      line = line_;
    }
    std::size_t next = end + 1;
    if (bytes[end] == '\r') {
      if (next == bytes.size()) {
        last_was_cr_ = true;
      } else if (bytes[next] == '\n') {
        ++next;
      }
    }
    position_ = next;
    if (line.empty()) {
      last_blank = next;
    }
    process_line(line, in_bytes, on_event);
    if (line.empty()) {
      event_begin_ = next;
    }
    line_.clear();
    pos = next;
  }
  materialize();  // an event still open keeps its data past these bytes
  position_ = std::string_view::npos;
  unfinished_ = last_blank == std::string_view::npos ? unfinished_ + bytes.size() : bytes.size() - last_blank;
  return last_blank;
}

void SseParser::finish(Callback on_event) {
  if (!line_.empty()) {
    process_line(line_, false, on_event);
    line_.clear();
  }
  dispatch(on_event);
  last_was_cr_ = false;
}

void SseParser::process_line(std::string_view line, bool in_bytes, Callback on_event) {
  if (line.empty()) {
    dispatch(on_event);
    return;
  }
  at_event_start_ = false;
  if (line.front() == ':') {
    return;  // comment, often used as a keep-alive
  }
  const std::size_t colon = line.starts_with("data:") ? 4 : line.find(':');
  std::string_view field = line.substr(0, colon);
  std::string_view value;
  if (colon != std::string_view::npos) {
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') {
      value.remove_prefix(1);
    }
  }
  if (field == "data") {
    if (!has_data_ && in_bytes) {
      data_view_ = value;  // the usual event, one data line: handed over without a copy
    } else {
      materialize();
      if (has_data_) {
        data_.push_back('\n');
      }
      data_.append(value);
    }
    has_data_ = true;
  } else if (field == "event") {
    event_.assign(value);
  } else if (field == "id") {
    id_.assign(value);
  } else if (field != "retry") {
    ++ignored_lines_;
  }
}

void SseParser::materialize() {
  if (data_view_.data() != nullptr) {
    data_.assign(data_view_);
    data_view_ = {};
  }
}

void SseParser::dispatch(Callback on_event) {
  if (has_data_) {
    on_event(SseEvent{event_, data_view_.data() != nullptr ? data_view_ : std::string_view(data_), id_});
  }
  data_view_ = {};
  data_.clear();
  event_.clear();
  has_data_ = false;
  at_event_start_ = true;
}

}  // namespace infergate::http
