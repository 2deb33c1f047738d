#include "bench/repeats.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace infergate::bench {
namespace {

TEST(Repeats, MeanSdCvAndStudentInterval) {
  const Spread s = spread({1, 2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.sd, std::sqrt(2.5), 1e-12);
  EXPECT_NEAR(s.cv, std::sqrt(2.5) / 3, 1e-12);
  const double half = 2.776 * std::sqrt(2.5) / std::sqrt(5.0);  // t(0.975, 4 df)
  EXPECT_NEAR(s.ci95_low, 3 - half, 1e-9);
  EXPECT_NEAR(s.ci95_high, 3 + half, 1e-9);
  EXPECT_EQ(s.values.size(), 5u);
}

TEST(Repeats, OneRunHasNoSpreadAndNoneIsEmpty) {
  const Spread one = spread({7});
  EXPECT_DOUBLE_EQ(one.mean, 7);
  EXPECT_DOUBLE_EQ(one.sd, 0);
  EXPECT_DOUBLE_EQ(one.ci95_low, 7);
  EXPECT_EQ(spread({}).count, 0u);
}

TEST(Repeats, TQuantileFallsTowardTheNormal) {
  EXPECT_DOUBLE_EQ(t_quantile_95(1), 12.706);
  EXPECT_DOUBLE_EQ(t_quantile_95(30), 2.042);
  EXPECT_NEAR(t_quantile_95(60), 2.000, 0.002);
  EXPECT_NEAR(t_quantile_95(120), 1.980, 0.002);
  EXPECT_NEAR(t_quantile_95(100000), 1.960, 0.001);
}

TEST(Repeats, FiguresTakeEachRunsSummary) {
  std::vector<BenchSummary> runs(3);
  for (int i = 0; i < 3; ++i) {
    runs[i].output_tokens_per_s = 100 + 10 * i;
    runs[i].ttft_ms.p99 = 50;
  }
  const RepeatedFigures f = repeated_figures(runs, {90, 100, 110});
  ASSERT_EQ(f.names.size(), f.spreads.size());
  EXPECT_EQ(f.names.front(), "output_tokens_per_s");
  EXPECT_DOUBLE_EQ(f.spreads.front().mean, 110);
  EXPECT_DOUBLE_EQ(f.spreads[1].mean, 100);  // the steady rates
  const auto p99 = std::find(f.names.begin(), f.names.end(), "ttft_ms_p99") - f.names.begin();
  EXPECT_DOUBLE_EQ(f.spreads[p99].sd, 0);
  EXPECT_DOUBLE_EQ(f.spreads[p99].cv, 0);
}

TEST(Repeats, PromptOnlyRunsAreToldApartByTheInputTheyTakeIn) {
  std::vector<BenchSummary> runs(2);
  for (int i = 0; i < 2; ++i) {
    runs[i].completed = 10;
    runs[i].total_tokens_per_s = 5000 + 1000 * i;
  }
  const RepeatedFigures f = repeated_figures(runs, {4800, 5200}, true);
  ASSERT_GE(f.names.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(f.names.begin(), f.names.begin() + 3),
            (std::vector<std::string>{"input_tokens_per_s", "steady_input_tokens_per_s", "requests_per_s"}));
  EXPECT_DOUBLE_EQ(f.spreads[0].mean, 5500);
  EXPECT_DOUBLE_EQ(f.spreads[1].mean, 5000);
  for (const std::string& name : f.names) {
    EXPECT_FALSE(name.starts_with("output") || name.starts_with("tpot") || name.starts_with("itl")) << name;
  }
  EXPECT_NE(std::find(f.names.begin(), f.names.end(), "e2e_ms_p99"), f.names.end());
}

TEST(Repeats, MorePercentilesFollowEachLatencysP99) {
  std::vector<BenchSummary> runs(2);
  for (int i = 0; i < 2; ++i) {
    runs[i].ttft_ms.more = {{99.9, 80.0 + 10 * i}};
    runs[i].tpot_ms.more = {{99.9, 4.0}};
    runs[i].e2e_ms.more = {{99.9, 900.0}};
  }
  const RepeatedFigures f = repeated_figures(runs, {0, 0});
  auto at = [&](const char* name) { return std::find(f.names.begin(), f.names.end(), name) - f.names.begin(); };
  ASSERT_LT(at("ttft_ms_p99.9"), static_cast<std::ptrdiff_t>(f.names.size()));
  EXPECT_EQ(at("ttft_ms_p99.9"), at("ttft_ms_p99") + 1);
  EXPECT_EQ(at("tpot_ms_p99.9"), at("tpot_ms_p99") + 1);
  EXPECT_EQ(at("e2e_ms_p99.9"), at("e2e_ms_p99") + 1);
  EXPECT_EQ(at("itl_ms_p99.9"), static_cast<std::ptrdiff_t>(f.names.size()));  // ITL shows its median only
  EXPECT_DOUBLE_EQ(f.spreads[at("ttft_ms_p99.9")].mean, 85);
  EXPECT_GT(f.spreads[at("ttft_ms_p99.9")].sd, 0);
  EXPECT_EQ(repeated_figures(std::vector<BenchSummary>(2), {0, 0}).names.size() + 3, f.names.size());
}

}  // namespace
}  // namespace infergate::bench
