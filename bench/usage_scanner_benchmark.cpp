// The usage of a non-streamed answer, read from a body that arrives in one piece (as nearly every
// answer does, member by member over the body's marks) against the same body read by the state
// machine that takes bodies in pieces (its first byte alone, then the rest), on the same bytes:
// a chat answer as the gateway benchmarks' upstream sends it, and one with a long, escaped answer.
#include <benchmark/benchmark.h>

#include <string>

#include "openai/usage_scanner.hpp"

namespace {

std::string chat_answer(int words, std::string_view word) {
  std::string body =
      R"({"id":"chatcmpl-bench","object":"chat.completion","created":1,"model":"bench","choices":[{"index":0,)"
      R"("message":{"role":"assistant","content":")";
  for (int w = 0; w < words; ++w) {
    body += w == 0 ? "" : " ";
    body += word;
  }
  body += R"("},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":128,"completion_tokens":60,)"
          R"("total_tokens":188}})";
  return body;
}

const std::string kShort = chat_answer(60, "word");                    // 556 bytes
const std::string kEscaped = chat_answer(400, R"(\"quoted\"\nline)");  // 6 kB

void scan(benchmark::State& state, const std::string& body, std::size_t first_piece) {
  std::int64_t tokens = 0;
  for (auto _ : state) {
    infergate::openai::UsageScanner scanner;
    scanner.feed(std::string_view(body).substr(0, first_piece));
    scanner.feed(std::string_view(body).substr(first_piece));
    tokens += scanner.usage() ? scanner.usage()->completion_tokens : 0;
  }
  benchmark::DoNotOptimize(tokens);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
}

void BM_UsageWhole(benchmark::State& state) {
  scan(state, kShort, kShort.size());
}
BENCHMARK(BM_UsageWhole);

void BM_UsageStateMachine(benchmark::State& state) {
  scan(state, kShort, 1);
}
BENCHMARK(BM_UsageStateMachine);

void BM_UsageWholeEscaped(benchmark::State& state) {
  scan(state, kEscaped, kEscaped.size());
}
BENCHMARK(BM_UsageWholeEscaped);

void BM_UsageStateMachineEscaped(benchmark::State& state) {
  scan(state, kEscaped, 1);
}
BENCHMARK(BM_UsageStateMachineEscaped);

}  // namespace
