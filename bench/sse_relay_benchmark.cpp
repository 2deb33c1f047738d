// What the gateway does to each upstream read of a stream (find the events, note when text came,
// read the usage chunk and remove it) against what a proxy that does not look at the events does
// with the same bytes: copy them on. The stream is gateway_overhead.py's: 68 chat chunks of a
// typical size, the usage chunk and [DONE]; and the same as OpenAI sends it when asked for usage
// (which the gateway always asks for): every other chunk carries "usage":null. Both run in
// alternating rounds; the ratio is printed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gateway/sse_relay.hpp"

namespace {

std::string bench_stream(bool usage_null) {
  const std::string head = R"({"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"bench",)";
  const std::string tail = usage_null ? R"(,"usage":null})" : "}";
  std::string s = "data: " + head +
                  R"("choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,)"
                  R"("finish_reason":null}])" +
                  tail + "\n\n";
  for (int i = 0; i < 64; ++i) {
    s += "data: " + head +
         R"("choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}])" + tail + "\n\n";
  }
  s += "data: " + head + R"("choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}])" + tail +
       "\n\n";
  s += "data: " + head + R"("choices":[],"usage":{"prompt_tokens":128,"completion_tokens":64,"total_tokens":192}})" +
       "\n\n";
  return s + "data: [DONE]\n\n";
}

template <class F>
double ns_per_stream(int streams, F f) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < streams; ++i) {
    f();
  }
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / streams;
}

}  // namespace

int main() {
  constexpr int kEvents = 68;
  long sink = 0;
  std::printf("%-40s %10s %10s %8s %8s\n", "stream, reads", "relay ns", "per event", "copy ns", "ratio");
  for (const bool usage_null : {false, true}) {
    const std::string stream = bench_stream(usage_null);
    std::string out(stream.size(), '\0');
    for (const std::size_t read : {stream.size(), std::size_t{1460}}) {
      auto relay = [&] {
        infergate::gateway::SseRelay events(true);
        for (std::size_t at = 0; at < stream.size(); at += read) {
          const std::string_view piece = std::string_view(stream).substr(at, read);
          events.feed(piece, static_cast<std::int64_t>(at));
          sink += static_cast<long>(events.pieces().size());
        }
        events.finish(1);
        sink += static_cast<long>(events.pieces().size());
        sink += events.text_events() + (events.usage() ? events.usage()->completion_tokens : 0);
      };
      auto copy = [&] {
        for (std::size_t at = 0; at < stream.size(); at += read) {
          const std::size_t n = std::min(read, stream.size() - at);
          std::memcpy(out.data() + at, stream.data() + at, n);
        }
        sink += out[static_cast<std::size_t>(sink) % out.size()];
      };
      std::vector<double> ours;
      std::vector<double> theirs;
      for (int round = 0; round < 7; ++round) {
        ours.push_back(ns_per_stream(20000, relay));
        theirs.push_back(ns_per_stream(20000, copy));
      }
      std::sort(ours.begin(), ours.end());
      std::sort(theirs.begin(), theirs.end());
      const std::string name = std::string(usage_null ? "usage:null in each chunk" : "gateway_overhead.py's") +
                               (read == stream.size() ? ", one read" : ", 1460-byte reads");
      std::printf("%-40s %10.0f %10.1f %8.0f %8.1f\n", name.c_str(), ours[3], ours[3] / kEvents, theirs[3],
                  ours[3] / theirs[3]);
    }
  }
  return sink == 42 ? 1 : 0;
}
