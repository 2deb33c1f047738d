#include "bench/sweep_report.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace infergate::bench
