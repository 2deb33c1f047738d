// Our incremental SSE parser + chunk view against the naive way Python-style clients do it
// (split the buffer into lines with a fresh string each, then parse JSON), on the same bytes.
#include <benchmark/benchmark.h>

#include <sstream>
#include <string>
#include <vector>

#include "http/sse_parser.hpp"
#include "openai/chunk_glance.hpp"
#include "openai/stream_chunk.hpp"

namespace {

std::string sample_stream(int events) {
  std::string s;
  for (int i = 0; i < events; ++i) {
    s +=
        R"(data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}]})";
    s += "\n\n";
  }
  return s;
}

void BM_InfergateParser(benchmark::State& state) {
  const std::string stream = sample_stream(256);
  for (auto _ : state) {
    infergate::http::SseParser parser;
    std::size_t bytes = 0;
    infergate::openai::ChunkView view;
    for (std::size_t pos = 0; pos < stream.size(); pos += 1500) {  // MTU-sized reads
      parser.feed(std::string_view(stream).substr(pos, 1500), [&](const infergate::http::SseEvent& e) {
        infergate::openai::parse_stream_chunk(e.data, view);
        bytes += view.text_bytes;
      });
    }
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(state.iterations() * 256);
}
BENCHMARK(BM_InfergateParser);

void BM_NaiveLineSplit(benchmark::State& state) {
  const std::string stream = sample_stream(256);
  for (auto _ : state) {
    std::istringstream in(stream);
    std::string line;
    std::size_t bytes = 0;
    infergate::openai::ChunkView view;
    while (std::getline(in, line)) {
      if (line.rfind("data: ", 0) == 0) {
        infergate::openai::parse_stream_chunk(line.substr(6), view);
        bytes += view.text_bytes;
      }
    }
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(state.iterations() * 256);
}
BENCHMARK(BM_NaiveLineSplit);

// The proxy's per-event look (does it carry text, does it need a full parse), sixteen bytes at a
// time, against its memchr-per-colon form.
std::vector<std::string> sample_events() {
  std::vector<std::string> events;
  for (int i = 0; i < 256; ++i) {
    events.push_back(
        R"({"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"bench","choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}]})");
  }
  return events;
}

void BM_Glance(benchmark::State& state) {
  const auto events = sample_events();
  for (auto _ : state) {
    int text = 0;
    for (const auto& e : events) {
      text += infergate::openai::glance_stream_chunk(e).text ? 1 : 0;
    }
    benchmark::DoNotOptimize(text);
  }
  state.SetItemsProcessed(state.iterations() * 256);
}
BENCHMARK(BM_Glance);

// Each block width apart (glance_stream_chunk takes the widest the CPU has).
template <infergate::openai::ChunkGlance (*Glance)(std::string_view)>
void BM_GlanceWidth(benchmark::State& state) {
  const auto events = sample_events();
  for (auto _ : state) {
    int text = 0;
    for (const auto& e : events) {
      text += Glance(e).text ? 1 : 0;
    }
    benchmark::DoNotOptimize(text);
  }
  state.SetItemsProcessed(state.iterations() * 256);
  state.SetLabel(std::string(infergate::openai::glance_has_32_byte_blocks() ? "" : "no AVX2 ") +
                 (infergate::openai::glance_has_64_byte_blocks() ? "" : "no AVX-512BW: narrower blocks stand in"));
}
BENCHMARK(BM_GlanceWidth<infergate::openai::glance_stream_chunk_16>)->Name("BM_Glance16");
BENCHMARK(BM_GlanceWidth<infergate::openai::glance_stream_chunk_32>)->Name("BM_Glance32");
BENCHMARK(BM_GlanceWidth<infergate::openai::glance_stream_chunk_64>)->Name("BM_Glance64");

void BM_GlanceScalar(benchmark::State& state) {
  const auto events = sample_events();
  for (auto _ : state) {
    int text = 0;
    for (const auto& e : events) {
      text += infergate::openai::glance_stream_chunk_scalar(e).text ? 1 : 0;
    }
    benchmark::DoNotOptimize(text);
  }
  state.SetItemsProcessed(state.iterations() * 256);
}
BENCHMARK(BM_GlanceScalar);

// An event's line end and glance as the gateway's relay finds them, in one pass, against finding
// the line's end first and then glancing (what glance_stream_line does where the CPU lacks
// AVX-512BW). Each value is seen as the parser sees it: up to the end of the read.
template <infergate::openai::LineGlance (*Glance)(std::string_view)>
void BM_GlanceLineWith(benchmark::State& state) {
  const std::string stream = sample_stream(256);
  for (auto _ : state) {
    int text = 0;
    for (std::size_t pos = 0; pos < stream.size();) {
      const infergate::openai::LineGlance line = Glance(std::string_view(stream).substr(pos + 5));
      text += line.glance.text ? 1 : 0;
      pos += 5 + line.line_end + 2;
    }
    benchmark::DoNotOptimize(text);
  }
  state.SetItemsProcessed(state.iterations() * 256);
  state.SetLabel(infergate::openai::glance_has_64_byte_blocks() ? "" : "no AVX-512BW: both are two passes");
}
BENCHMARK(BM_GlanceLineWith<infergate::openai::glance_stream_line>)->Name("BM_GlanceLine");
BENCHMARK(BM_GlanceLineWith<infergate::openai::glance_stream_line_two_passes>)->Name("BM_GlanceLineTwoPasses");

// The same stream as one run, the glance's set-up and the loop over events in one call (what the
// relay does with each read), against the line-at-a-time loop above.
template <infergate::openai::EventRun (*Run)(std::string_view)>
void BM_GlanceRunWith(benchmark::State& state) {
  const std::string stream = sample_stream(256);
  for (auto _ : state) {
    const infergate::openai::EventRun run = Run(stream);
    benchmark::DoNotOptimize(run.text_events);
  }
  state.SetItemsProcessed(state.iterations() * 256);
  state.SetLabel(infergate::openai::glance_has_64_byte_blocks() ? "" : "no AVX-512BW: both are two passes");
}
BENCHMARK(BM_GlanceRunWith<infergate::openai::glance_event_run>)->Name("BM_GlanceRun");
BENCHMARK(BM_GlanceRunWith<infergate::openai::glance_event_run_two_passes>)->Name("BM_GlanceRunTwoPasses");

}  // namespace
