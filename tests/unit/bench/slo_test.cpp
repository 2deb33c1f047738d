#include "bench/slo.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <stdexcept>

#include "bench/time_units.hpp"

namespace infergate::bench {
namespace {

// A request due at 0 whose first token comes at `ttft` ms, then one token per `gap` ms.
RequestRecord request(std::int64_t ttft, std::int64_t gap, int tokens) {
  RequestRecord r;
  r.due_ns = r.dispatch_ns = 0;
  for (int i = 0; i < tokens; ++i) {
    r.text_events.push_back({(ttft + i * gap) * ms, 4});
  }
  r.first_token_ns = ttft * ms;
  r.last_byte_ns = (ttft + (tokens - 1) * gap) * ms;
  r.usage = openai::Usage{10, tokens};
  return r;
}

TEST(Slo, ParsesMetricPercentileAndDuration) {
  const auto slos = parse_slos("ttft_p99=500ms,tpot_p50=0.04s,e2e_p90=2000");
  ASSERT_EQ(slos.size(), 3u);
  EXPECT_EQ(slos[0].metric, Slo::Metric::ttft);
  EXPECT_DOUBLE_EQ(slos[0].percentile, 99);
  EXPECT_DOUBLE_EQ(slos[0].threshold_ms, 500);
  EXPECT_DOUBLE_EQ(slos[1].threshold_ms, 40);
  EXPECT_DOUBLE_EQ(slos[2].percentile, 90);
  EXPECT_EQ(slos[0].to_string(), "ttft_p99=500ms");
  EXPECT_THROW(parse_slos("latency_p99=1s"), std::invalid_argument);
  EXPECT_THROW(parse_slos("ttft=1s"), std::invalid_argument);
  EXPECT_THROW(parse_slos("ttft_p101=1s"), std::invalid_argument);
  EXPECT_THROW(parse_slos("ttft_p99=fast"), std::invalid_argument);
}

TEST(Slo, GoodputCountsRequestsMeetingEverySloAndFailuresCountAgainst) {
  std::vector<RequestRecord> records;
  for (int i = 0; i < 8; ++i) {
    records.push_back(request(100, 10, 11));  // TTFT 100, TPOT 10, E2E 200
  }
  records.push_back(request(900, 10, 11));  // slow first token
  RequestRecord failed;
  failed.last_byte_ns = 1000 * ms;
  failed.fail("http_500", "boom");
  records.push_back(failed);
  BenchSummary summary = summarize_run(records);
  const Goodput g = measure_goodput(records, summary, parse_slos("ttft_p50=200ms,tpot_p99=20ms"));
  EXPECT_EQ(g.good, 8u);
  EXPECT_DOUBLE_EQ(g.good_share, 0.8);
  EXPECT_DOUBLE_EQ(g.requests_per_s, 8 / summary.duration_s);
  EXPECT_DOUBLE_EQ(g.output_tokens_per_s, 88 / summary.duration_s);
  EXPECT_DOUBLE_EQ(g.input_tokens_per_s, 80 / summary.duration_s);  // ten prompt tokens each
  // p50 TTFT holds (100 ms, and 10% failed is within p50's half); 10% failed breaks tpot_p99.
  EXPECT_FALSE(g.met);
  ASSERT_EQ(g.broken.size(), 1u);
  EXPECT_EQ(g.broken[0], "tpot_p99=20ms: 10.0% of requests failed");
}

TEST(Slo, APercentileIsBrokenByItsValueOrByFailuresBeyondItsShare) {
  std::vector<RequestRecord> records(9, request(100, 10, 11));
  records.push_back(request(900, 10, 11));
  const BenchSummary summary = summarize_run(records);
  const Goodput p99 = measure_goodput(records, summary, parse_slos("ttft_p99=200ms"));
  EXPECT_FALSE(p99.met);  // interpolated between the ninth (100 ms) and tenth (900 ms) values
  ASSERT_EQ(p99.broken.size(), 1u);
  EXPECT_NE(p99.broken[0].find("ttft_p99 828.0ms > 200ms"), std::string::npos) << p99.broken[0];
  EXPECT_TRUE(measure_goodput(records, summary, parse_slos("ttft_p90=200ms")).met);

  records.back().fail("timeout", "late");
  const BenchSummary with_failure = summarize_run(records);
  const Goodput g = measure_goodput(records, with_failure, parse_slos("ttft_p95=200ms"));
  EXPECT_FALSE(g.met);  // 10% failed, more than p95 allows
  EXPECT_NE(g.broken[0].find("10.0% of requests failed"), std::string::npos);
}

// Workers' goodputs pool into the goodput of all their requests: good counts and rates add, and
// each SLO is judged on the pooled samples, not on any worker's alone.
TEST(Slo, PooledGoodputsAddTheirGoodAndJudgeThePooledSamples) {
  const std::vector<Slo> slos = parse_slos("ttft_p90=200ms");
  std::vector<RequestRecord> fast(10, request(100, 10, 11));
  std::vector<RequestRecord> slow(10, request(100, 10, 11));
  for (int i = 0; i < 3; ++i) {
    slow[static_cast<std::size_t>(i)] = request(900, 10, 11);
  }
  const BenchSummary fast_summary = summarize_run(fast);
  const BenchSummary slow_summary = summarize_run(slow);
  const Goodput a = measure_goodput(fast, fast_summary, slos);
  const Goodput b = measure_goodput(slow, slow_summary, slos);
  ASSERT_TRUE(a.met);
  ASSERT_FALSE(b.met);  // 30% over 200 ms
  std::vector<RequestRecord> all = fast;
  all.insert(all.end(), slow.begin(), slow.end());
  BenchSummary pooled = summarize_run(all);
  pooled.requests_per_s = fast_summary.requests_per_s + slow_summary.requests_per_s;
  // Round trip through the JSON the workers write, then pool.
  const std::vector<Goodput> parts{goodput_from_json(goodput_json(a, slos)), goodput_from_json(goodput_json(b, slos))};
  EXPECT_EQ(goodput_slos(goodput_json(b, slos))[0].to_string(), "ttft_p90=200ms");
  EXPECT_EQ(parts[1].broken, b.broken);
  const Goodput g = pool_goodputs(parts, pooled, slos);
  EXPECT_EQ(g.good, 17u);
  EXPECT_DOUBLE_EQ(g.good_share, 17.0 / 20);
  EXPECT_DOUBLE_EQ(g.requests_per_s, a.requests_per_s + b.requests_per_s);
  EXPECT_DOUBLE_EQ(g.output_tokens_per_s, a.output_tokens_per_s + b.output_tokens_per_s);
  EXPECT_FALSE(g.met);  // 15% of the pooled requests over 200 ms: p90 broken
  ASSERT_EQ(g.broken.size(), 1u);
  EXPECT_NE(g.broken[0].find("ttft_p90"), std::string::npos) << g.broken[0];
  EXPECT_TRUE(pool_goodputs(parts, pooled, parse_slos("ttft_p80=200ms")).met);  // 15% allowed 20%
  EXPECT_THROW(goodput_from_json(boost::json::object{{"good_requests", 2.5}}), std::runtime_error);
  EXPECT_THROW(goodput_slos(boost::json::object{{"slos", "ttft"}}), std::runtime_error);
}

}  // namespace
}  // namespace infergate::bench
