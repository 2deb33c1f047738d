#include "bench/server_metrics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/roofline_context.hpp"

namespace infergate::bench {
namespace {

TEST(ServerMetrics, ReadsVllmGaugesSummedOverLabels) {
  const ServerSample s = parse_server_metrics(
      "# HELP vllm:num_requests_running Sequences in the running batch.\n"
      "# TYPE vllm:num_requests_running gauge\n"
      "vllm:num_requests_running{model_name=\"a b\",engine=\"0\"} 3\n"
      "vllm:num_requests_running{model_name=\"c\",engine=\"1\"} 2\n"
      "vllm:num_requests_waiting{model_name=\"a b\"} 7 1700000000\n"
      "vllm:num_requests_waiting_total 99\n"
      "vllm:gpu_cache_usage_perc 0.25\n");
  EXPECT_EQ(s.running, 5.0);
  EXPECT_EQ(s.waiting, 7.0);
  EXPECT_EQ(s.kv_cache_usage, 0.25);
}

TEST(ServerMetrics, ReadsSglangAndLeavesMissingGaugesEmpty) {
  const ServerSample s = parse_server_metrics("sglang:num_queue_reqs{name=\"x\"} 4\nsglang:token_usage 0.5\n");
  EXPECT_EQ(s.waiting, 4.0);
  EXPECT_EQ(s.kv_cache_usage, 0.5);
  EXPECT_FALSE(s.running.has_value());
  EXPECT_FALSE(parse_server_metrics("garbage\n{}\n").waiting.has_value());
}

TEST(RooflineContext, MeasuredSharesOfTheCeiling) {
  RooflineContext c;
  c.ideal_decode_tps = 100;
  c.batch_tps = 2000;
  c.prefill_ms = 50;
  BenchSummary s;
  s.tpot_ms.p50 = 20;  // 50 tok/s a stream
  s.output_tokens_per_s = 500;
  s.ttft_ms.count = 10;
  s.ttft_ms.p50 = 75;
  const RooflineFractions f = roofline_fractions(c, s);
  EXPECT_DOUBLE_EQ(*f.stream_decode, 0.5);
  EXPECT_DOUBLE_EQ(*f.throughput, 0.25);
  EXPECT_DOUBLE_EQ(*f.ttft_over_prefill, 1.5);
  const boost::json::value saved = roofline_json(c);
  const auto back = roofline_from_json(&saved);
  ASSERT_TRUE(back.has_value());
  EXPECT_DOUBLE_EQ(back->batch_tps, 2000);
}

std::string printed(const RooflineContext& c, const BenchSummary& s) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  print_roofline(out, c, s);
  std::fclose(out);
  std::string result(text, size);
  std::free(text);
  return result;
}

RooflineContext ceilings() {
  RooflineContext c;
  c.profile = "m:bf16@h200";
  c.ideal_decode_tps = 100;
  c.batch_tps = 2000;
  c.prefill_ms = 50;
  return c;
}

// Each measured share is said on the line under the ceiling, whichever of them a run has; a run
// that produced nothing has none (it had printed a line that began with a comma, and "0.0% of the
// largest batch's").
TEST(RooflineContext, PrintsTheSharesARunHasAndNoneForARunThatProducedNothing) {
  const RooflineContext c = ceilings();
  BenchSummary s;
  const std::string nothing = printed(c, s);
  EXPECT_EQ(nothing.find("measured"), std::string::npos) << nothing;
  EXPECT_EQ(std::count(nothing.begin(), nothing.end(), '\n'), 1) << nothing;
  s.output_tokens_per_s = 500;
  const std::string throughput_only = printed(c, s);
  EXPECT_NE(throughput_only.find("\n                measured: throughput is 25.0% of the largest batch's\n"),
            std::string::npos)
      << throughput_only;
  s.tpot_ms.p50 = 20;
  s.ttft_ms.count = 10;
  s.ttft_ms.p50 = 75;
  const std::string all = printed(c, s);
  EXPECT_NE(all.find("measured: a stream decodes at 50% of the ceiling (1000 / TPOT p50), throughput is 25.0% of the "
                     "largest batch's, TTFT p50 is 1.5x the prefill time\n"),
            std::string::npos)
      << all;
}

// An embeddings run decoded nothing: the decode ceilings say nothing of it, the prefill time does.
TEST(RooflineContext, APromptOnlyRunIsSetAgainstThePrefillAlone) {
  const RooflineContext c = ceilings();
  BenchSummary s;
  s.completed = 10;
  s.prompt_tokens = 2560;
  s.ttft_ms.count = 10;
  s.ttft_ms.p50 = 100;
  const std::string text = printed(c, s);
  EXPECT_EQ(text,
            "  roofline      m:bf16@h200: a request's input prefills in 50.00 ms\n"
            "                measured: TTFT p50 is 2.0x the prefill time\n");
}

}  // namespace
}  // namespace infergate::bench
