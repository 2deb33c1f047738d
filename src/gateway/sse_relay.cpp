#include "gateway/sse_relay.hpp"

namespace infergate::gateway {

void SseRelay::feed(std::string_view bytes, std::int64_t now_ns, std::string& out) {
  parser_.feed(bytes, [&](const http::SseEvent& event) { on_event(event, now_ns, out); });
}

void SseRelay::finish(std::int64_t now_ns, std::string& out) {
  parser_.finish([&](const http::SseEvent& event) { on_event(event, now_ns, out); });
}

void SseRelay::on_event(const http::SseEvent& event, std::int64_t now_ns, std::string& out) {
  if (event.data != "[DONE]") {
    const openai::ChunkGlance glance = openai::glance_stream_chunk(event.data);
    if (glance.text) {
      first_token_ns_ = first_token_ns_ != 0 ? first_token_ns_ : now_ns;
      last_token_ns_ = now_ns;
      ++text_events_;
    }
    openai::ChunkView view;
    if (glance.needs_parse && !openai::parse_stream_chunk(event.data, view) && view.usage) {
      usage_ = view.usage;
      if (strip_usage_ && !view.has_choices) {
        return;
      }
    }
  }
  if (!event.event.empty()) {
    out.append("event: ").append(event.event).push_back('\n');
  }
  std::string_view data = event.data;
  for (std::size_t newline = data.find('\n'); newline != std::string_view::npos; newline = data.find('\n')) {
    out.append("data: ").append(data.substr(0, newline)).push_back('\n');
    data.remove_prefix(newline + 1);
  }
  out.append("data: ").append(data).append("\n\n");
}

}  // namespace infergate::gateway
