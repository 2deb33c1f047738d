#pragma once
// What the client gets of an upstream's event stream: every event, re-framed as it came, except the
// usage-only chunk the gateway asked for on the client's behalf. On the way it notes when text
// arrived and the token usage. Pure logic on bytes: the proxy feeds it each read.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "http/sse_parser.hpp"
#include "openai/stream_chunk.hpp"

namespace infergate::gateway {

class SseRelay {
 public:
  explicit SseRelay(bool strip_usage) : strip_usage_(strip_usage) {}

  // Appends to `out` what the client should receive for these upstream bytes; `now_ns` stamps the
  // text-carrying events among them.
  void feed(std::string_view bytes, std::int64_t now_ns, std::string& out);
  // The end of the upstream body (delivers an event left without its final blank line).
  void finish(std::int64_t now_ns, std::string& out);

  [[nodiscard]] std::int64_t first_token_ns() const { return first_token_ns_; }
  [[nodiscard]] std::int64_t last_token_ns() const { return last_token_ns_; }
  [[nodiscard]] const std::optional<openai::Usage>& usage() const { return usage_; }
  // Events that carried generated text: at least one token each, the count to charge when the
  // stream ends before its usage chunk.
  [[nodiscard]] std::int64_t text_events() const { return text_events_; }

 private:
  void on_event(const http::SseEvent& event, std::int64_t now_ns, std::string& out);

  http::SseParser parser_;
  bool strip_usage_;
  std::int64_t first_token_ns_ = 0;
  std::int64_t last_token_ns_ = 0;
  std::int64_t text_events_ = 0;
  std::optional<openai::Usage> usage_;
};

}  // namespace infergate::gateway
