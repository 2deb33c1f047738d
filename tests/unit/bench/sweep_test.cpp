#include "bench/sweep.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace infergate::bench {
namespace {

SweepPoint point(double level, double tokens_per_s, double ttft_p99, double tpot_p99) {
  SweepPoint p;
  p.level = level;
  p.summary.output_tokens_per_s = tokens_per_s;
  p.summary.ttft_ms.p99 = ttft_p99;
  p.summary.tpot_ms.p99 = tpot_p99;
  return p;
}

TEST(Sweep, ParsesLevelsSortedAndUnique) {
  const SweepSpec c = parse_sweep("concurrency=8,1,2,2");
  EXPECT_EQ(c.kind, SweepSpec::Kind::concurrency);
  EXPECT_EQ(c.levels, (std::vector<double>{1, 2, 8}));
  const SweepSpec r = parse_sweep("rate=0.5,2.5");
  EXPECT_EQ(r.kind, SweepSpec::Kind::rate);
  EXPECT_EQ(r.levels, (std::vector<double>{0.5, 2.5}));
  EXPECT_TRUE(parse_sweep("auto").automatic());
  EXPECT_THROW(parse_sweep("concurrency=1.5"), std::invalid_argument);
  EXPECT_THROW(parse_sweep("concurrency=0"), std::invalid_argument);
  EXPECT_THROW(parse_sweep("qps=1"), std::invalid_argument);
  EXPECT_THROW(parse_sweep("rate="), std::invalid_argument);
  const SweepSpec s = parse_sweep("speed=4,0.5");  // a replayed trace's
  EXPECT_EQ(s.kind, SweepSpec::Kind::speed);
  EXPECT_EQ(s.levels, (std::vector<double>{0.5, 4}));
  EXPECT_STREQ(kind_name(s.kind), "speed");
  EXPECT_THROW(parse_sweep("speed=0"), std::invalid_argument);
}

TEST(Sweep, TheKneeIsTheLastLevelBeforeThroughputGoesFlatWhileLatencyClimbs) {
  const std::vector<SweepPoint> points{point(1, 100, 10, 5), point(2, 195, 10, 5.2), point(4, 380, 11, 5.5),
                                       point(8, 400, 40, 8), point(16, 405, 90, 9)};
  const auto knee = find_knee(points, KneeRule{});
  ASSERT_TRUE(knee);
  EXPECT_EQ(points[knee->index].level, 4);
  EXPECT_NE(knee->reason.find("from 4 to 8"), std::string::npos);
}

TEST(Sweep, EmbeddingsKneeOnTheInputTokensTheyTakeIn) {
  std::vector<SweepPoint> points{point(1, 0, 10, 0), point(2, 0, 12, 0), point(4, 0, 30, 0)};
  for (auto [point, input_rate] : {std::pair{&points[0], 5000.0}, {&points[1], 9800.0}, {&points[2], 9900.0}}) {
    point->summary.total_tokens_per_s = input_rate;
    point->summary.completed = 10;  // answered, generating nothing
  }
  const auto knee = find_knee(points, KneeRule{});
  ASSERT_TRUE(knee);
  EXPECT_EQ(points[knee->index].level, 2);
  EXPECT_NE(knee->reason.find("throughput +1.0%"), std::string::npos) << knee->reason;
  EXPECT_EQ(knee->reason.find("TPOT"), std::string::npos) << knee->reason;  // there is none
}

TEST(Sweep, FlatThroughputWithFlatLatencyIsNoKnee) {
  // Noise at a light load: no gain, but nothing climbs either.
  const std::vector<SweepPoint> points{point(1, 100, 10, 5), point(2, 101, 10.2, 5), point(4, 300, 11, 5)};
  EXPECT_FALSE(find_knee(points, KneeRule{}));
}

TEST(Sweep, AutoDoublesUntilTheKneeThenFillsIn) {
  std::vector<SweepPoint> points;
  const KneeRule rule;
  EXPECT_EQ(next_auto_level(points, rule, 1024, SweepSpec::Kind::concurrency), 1.0);
  points = {point(1, 100, 10, 5), point(2, 200, 10, 5), point(4, 390, 11, 5)};
  EXPECT_EQ(next_auto_level(points, rule, 1024, SweepSpec::Kind::concurrency), 8.0);
  points.push_back(point(8, 400, 40, 8));  // knee at 4: fill in between 4 and 8
  EXPECT_EQ(next_auto_level(points, rule, 1024, SweepSpec::Kind::concurrency), 6.0);
  points.insert(points.begin() + 3, point(6, 398, 25, 7));  // now the knee is at 4 -> 6
  EXPECT_EQ(next_auto_level(points, rule, 1024, SweepSpec::Kind::concurrency), 5.0);
  points.insert(points.begin() + 3, point(5, 396, 15, 6));
  EXPECT_FALSE(next_auto_level(points, rule, 1024, SweepSpec::Kind::concurrency));
}

TEST(Sweep, AutoStopsAtTheBoundOrABrokenSlo) {
  const KneeRule rule;
  std::vector<SweepPoint> points{point(1, 100, 10, 5), point(2, 200, 10, 5)};
  EXPECT_FALSE(next_auto_level(points, rule, 3, SweepSpec::Kind::concurrency));
  points.push_back(point(4, 400, 10, 5));
  points.back().goodput = Goodput{};
  points.back().goodput->met = false;
  EXPECT_EQ(next_auto_level(points, rule, 1024, SweepSpec::Kind::concurrency), 3.0);
  std::vector<SweepPoint> first_breaks{point(1, 100, 10, 5)};
  first_breaks.back().goodput = Goodput{};
  first_breaks.back().goodput->met = false;
  EXPECT_FALSE(next_auto_level(first_breaks, rule, 1024, SweepSpec::Kind::concurrency));
}

}  // namespace
}  // namespace infergate::bench
