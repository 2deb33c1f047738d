#include "bench/sweep_report.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace infergate::bench {
namespace {

std::string sweep_table_text(const std::vector<SweepPoint>& points) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  print_sweep_table(out, parse_sweep("concurrency=1,2"), points, std::nullopt, KneeRule{});
  std::fclose(out);
  std::string result(text, size);
  std::free(text);
  return result;
}

SweepPoint level_point(double level, std::int64_t output_tokens, double tokens_per_s) {
  SweepPoint p;
  p.level = level;
  p.summary.completed = 10;
  p.summary.output_tokens = output_tokens;
  p.summary.prompt_tokens = 2560;
  p.summary.output_tokens_per_s = output_tokens > 0 ? tokens_per_s : 0;
  p.summary.total_tokens_per_s = tokens_per_s + 1000;
  p.summary.tpot_ms.p50 = 2.5;
  return p;
}

// Embeddings levels are rated by the input tokens they take in, with no TPOT columns of zeros.
TEST(SweepTable, PromptOnlyLevelsShowTheirInputRateAndNoTpot) {
  const std::string prompts = sweep_table_text({level_point(1, 0, 500), level_point(2, 0, 900)});
  EXPECT_NE(prompts.find("    in tok/s  TTFT p50  TTFT p99  failed\n"), std::string::npos) << prompts;
  EXPECT_NE(prompts.find("1900.0"), std::string::npos) << prompts;
  EXPECT_EQ(prompts.find("TPOT"), std::string::npos) << prompts;  // nor in the knee's rule
  const std::string generated = sweep_table_text({level_point(1, 100, 500), level_point(2, 200, 900)});
  EXPECT_NE(generated.find("   out tok/s  TTFT p50  TTFT p99  TPOT p50  TPOT p99  failed\n"), std::string::npos)
      << generated;
  EXPECT_NE(generated.find("      900.0"), std::string::npos) << generated;
  EXPECT_NE(generated.find("2.50"), std::string::npos) << generated;
  EXPECT_NE(generated.find("p99 TTFT or p99 TPOT rises"), std::string::npos) << generated;
}

// A replayed trace's max-load search is by speed: its table, its answer and its JSON say so.
TEST(MaxLoadTable, ASearchOfReplaySpeedsNamesThemSpeeds) {
  const std::vector<SweepPoint> points{level_point(1, 100, 500), level_point(2, 200, 900)};
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  print_max_load(out, points, 1.0, 2.0, SweepSpec::Kind::speed);
  std::fclose(out);
  const std::string printed(text, size);
  std::free(text);
  EXPECT_NE(printed.find("search for the highest replay speed meeting every SLO"), std::string::npos) << printed;
  EXPECT_NE(printed.find("        speed     req/s"), std::string::npos) << printed;
  EXPECT_NE(printed.find("max load: 1x speed meets every SLO; 2x speed does not"), std::string::npos) << printed;
  const boost::json::object json = max_load_json(points, 1.0, 2.0, {}, {}, SweepSpec::Kind::speed);
  EXPECT_EQ(json.at("kind").as_string(), "speed");
  EXPECT_DOUBLE_EQ(json.at("speed").as_double(), 1.0);
  EXPECT_DOUBLE_EQ(json.at("failing_speed").as_double(), 2.0);
  EXPECT_EQ(max_load_json(points, 1.0, std::nullopt, {}, {}).at("kind").as_string(), "rate");
}

// --percentiles past p99 are columns after each latency's p99, as in the run's own table.
TEST(SweepTable, MorePercentilesFollowEachLatencysP99) {
  std::vector<SweepPoint> points{level_point(1, 100, 500), level_point(2, 200, 900)};
  for (SweepPoint& p : points) {
    p.summary.ttft_ms.p99 = 30;
    p.summary.ttft_ms.more = {{99.9, 42.5}};
    p.summary.tpot_ms.more = {{99.9, 7.25}};
  }
  const std::string text = sweep_table_text(points);
  EXPECT_NE(text.find("  TTFT p50  TTFT p99  TTFT p99.9  TPOT p50  TPOT p99  TPOT p99.9  failed\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("      30.0        42.5"), std::string::npos) << text;
  EXPECT_NE(text.find("        7.25"), std::string::npos) << text;
}

// A mixed-model sweep shows each model's levels after the run's, and keeps them in its points.
TEST(SweepTable, AMixedModelSweepShowsEachModelsLevelsAndKeepsThemInItsPoints) {
  std::vector<SweepPoint> points{level_point(1, 100, 500), level_point(2, 200, 900)};
  for (SweepPoint& p : points) {
    SweepPoint own = level_point(p.level, 50, 100 * p.level);
    own.summary.tpot_ms.p50 = 7.75 * p.level;
    p.by_model = {{"qwen2.5-7b", level_point(p.level, 150, 400).summary}, {"llama-3.3-70b", own.summary}};
  }
  const std::string text = sweep_table_text(points);
  const std::size_t small = text.find("  by model: qwen2.5-7b\n  concurrency     req/s");
  const std::size_t large = text.find("  by model: llama-3.3-70b\n");
  ASSERT_NE(small, std::string::npos) << text;
  ASSERT_NE(large, std::string::npos) << text;
  EXPECT_LT(text.find("no knee"), small) << text;
  EXPECT_NE(text.find("7.75", large), std::string::npos) << text;
  EXPECT_NE(text.find("15.50", large), std::string::npos) << text;
  EXPECT_EQ(text.find("7.75"), text.find("7.75", large)) << text;

  const boost::json::object json = sweep_json(parse_sweep("concurrency=1,2"), points, std::nullopt, KneeRule{}, {}, {});
  const auto& second = json.at("points").as_array().at(1).as_object();
  ASSERT_TRUE(second.contains("by_model")) << json;
  EXPECT_EQ(second.at("by_model").as_object().at("llama-3.3-70b").at("output_tokens").to_number<int>(), 50);
  EXPECT_FALSE(sweep_json(parse_sweep("concurrency=1"), {level_point(1, 100, 500)}, std::nullopt, KneeRule{}, {}, {})
                   .at("points")
                   .as_array()
                   .at(0)
                   .as_object()
                   .contains("by_model"));
}

// Each model of a mixed-model sweep gets its own knee: the one that stops gaining while its latency
// climbs is marked, the one still gaining is not.
TEST(SweepTable, EachModelOfAMixGetsItsOwnKnee) {
  std::vector<SweepPoint> points;
  const double flat[] = {100, 102, 103};
  const double rising[] = {100, 200, 400};
  for (std::size_t i = 0; i < 3; ++i) {
    SweepPoint p = level_point(static_cast<double>(1 << i), 100, 1000);
    SweepPoint stalls = level_point(p.level, 100, flat[i]);
    stalls.summary.ttft_ms.p99 = 10.0 * static_cast<double>(1 << i);
    SweepPoint gains = level_point(p.level, 100, rising[i]);
    gains.summary.ttft_ms.p99 = 10;
    p.by_model = {{"gains", gains.summary}, {"stalls", stalls.summary}};
    points.push_back(p);
  }
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  print_sweep_table(out, parse_sweep("concurrency=1,2,4"), points, std::nullopt, KneeRule{});
  std::fclose(out);
  const std::string printed(text, size);
  std::free(text);
  const std::size_t gains = printed.find("  by model: gains\n");
  const std::size_t stalls = printed.find("  by model: stalls\n");
  ASSERT_NE(stalls, std::string::npos) << printed;
  EXPECT_NE(printed.find("  no knee of its own\n", gains), std::string::npos) << printed;
  EXPECT_LT(printed.find("  no knee of its own\n", gains), stalls) << printed;
  EXPECT_NE(printed.find("<- knee", stalls), std::string::npos) << printed;
  EXPECT_NE(printed.find("  its knee at concurrency 1 (from 1 to 2: throughput +2.0%", stalls), std::string::npos)
      << printed;
  const boost::json::object json =
      sweep_json(parse_sweep("concurrency=1,2,4"), points, std::nullopt, KneeRule{}, {}, {});
  EXPECT_TRUE(json.at("knee_by_model").at("gains").is_null());
  EXPECT_EQ(json.at("knee_by_model").at("stalls").at("level").to_number<double>(), 1);
  EXPECT_FALSE(sweep_json(parse_sweep("concurrency=1"), {level_point(1, 100, 500)}, std::nullopt, KneeRule{}, {}, {})
                   .contains("knee_by_model"));
}

// With --server-metrics, each level shows the server's peaks and keeps its gauges on its own axis.
TEST(SweepTable, EachLevelKeepsTheServersGaugesWhileItRan) {
  std::vector<SweepPoint> points{level_point(1, 100, 500), level_point(2, 200, 900)};
  points[1].started_ns = 5'000'000'000;
  points[1].server = std::vector<ServerSample>{{5'000'000'000, 0.0, 4.0, 0.5}, {5'250'000'000, 3.0, 4.0, 0.75}};
  const std::string text = sweep_table_text(points);
  EXPECT_NE(text.find("  server at concurrency 2: peaks over 2 samples: 3 waiting, 4 running, KV cache 75% used\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("server at concurrency 1"), std::string::npos) << text;
  const boost::json::object json = sweep_json(parse_sweep("concurrency=1,2"), points, std::nullopt, KneeRule{}, {}, {});
  const auto& levels = json.at("points").as_array();
  EXPECT_FALSE(levels.at(0).as_object().contains("server"));
  const auto& server = levels.at(1).at("server").as_object();
  EXPECT_DOUBLE_EQ(server.at("t_s").as_array().at(1).as_double(), 0.25);
  EXPECT_DOUBLE_EQ(server.at("waiting").as_array().at(1).as_double(), 3);
}

}  // namespace
}  // namespace infergate::bench
