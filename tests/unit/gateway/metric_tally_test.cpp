#include "gateway/metric_tally.hpp"

#include <gtest/gtest.h>
#include <prometheus/counter.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <thread>
#include <vector>

namespace infergate::gateway {
namespace {

void expect_same(prometheus::Histogram& a, prometheus::Histogram& b) {
  const auto x = a.Collect().histogram;
  const auto y = b.Collect().histogram;
  EXPECT_EQ(x.sample_count, y.sample_count);
  EXPECT_NEAR(x.sample_sum, y.sample_sum, 1e-6);
  ASSERT_EQ(x.bucket.size(), y.bucket.size());
  for (std::size_t i = 0; i < x.bucket.size(); ++i) {
    EXPECT_EQ(x.bucket[i].cumulative_count, y.bucket[i].cumulative_count) << "le " << x.bucket[i].upper_bound;
  }
}

TEST(HistogramTally, AddsToItsSeriesWhatObservingTheSeriesWould) {
  prometheus::Registry registry;
  auto& family = prometheus::BuildHistogram().Name("t_seconds").Register(registry);
  const prometheus::Histogram::BucketBoundaries buckets{0.001, 0.01, 0.1, 1};
  auto& direct = family.Add({{"via", "observe"}}, buckets);
  auto& tallied = family.Add({{"via", "tally"}}, buckets);
  HistogramTally tally(tallied, buckets);
  // Values on a boundary, just past one, below the first and above the last.
  for (const double v : {0.0, 0.0005, 0.001, 0.0010001, 0.05, 0.1, 0.999, 1.0, 2.5, 30.0}) {
    direct.Observe(v);
    tally.observe(v);
  }
  EXPECT_EQ(tallied.Collect().histogram.sample_count, 0U);  // nothing reaches the series before a flush
  tally.flush();
  expect_same(direct, tallied);

  tally.flush();  // a second flush adds nothing
  expect_same(direct, tallied);
  direct.Observe(0.02);
  tally.observe(0.02);
  tally.flush();
  expect_same(direct, tallied);
}

TEST(HistogramTally, CountsEveryObservationFromManyThreads) {
  prometheus::Registry registry;
  const prometheus::Histogram::BucketBoundaries half{0.5};
  auto& series = prometheus::BuildHistogram().Name("t_seconds").Register(registry).Add({}, half);
  HistogramTally tally(series, half);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&tally, t] {
      for (int i = 0; i < 10'000; ++i) {
        tally.observe(t % 2 == 0 ? 0.25 : 0.75);
      }
    });
  }
  tally.flush();  // concurrent with the observations: whatever it missed, the next one adds
  for (auto& t : threads) {
    t.join();
  }
  tally.flush();
  const auto h = series.Collect().histogram;
  EXPECT_EQ(h.sample_count, 40'000U);
  EXPECT_EQ(h.bucket[0].cumulative_count, 20'000U);
  EXPECT_NEAR(h.sample_sum, 20'000 * 0.25 + 20'000 * 0.75, 1e-6);
}

TEST(MetricTallies, OneTallyPerSeriesSoThatEverySnapshotCountsIntoIt) {
  prometheus::Registry registry;
  auto& counters = prometheus::BuildCounter().Name("t_total").Register(registry);
  auto& histograms = prometheus::BuildHistogram().Name("t_seconds").Register(registry);
  const prometheus::Histogram::BucketBoundaries one{1.0};
  MetricTallies tallies;
  // Two snapshots ask for the same series (prometheus-cpp returns the same one for the same labels).
  CounterTally& a = tallies.counter(counters.Add({{"model", "m"}}));
  CounterTally& b = tallies.counter(counters.Add({{"model", "m"}}));
  EXPECT_EQ(&a, &b);
  EXPECT_NE(&a, &tallies.counter(counters.Add({{"model", "other"}})));
  HistogramTally& h = tallies.histogram(histograms.Add({}, one), one);
  EXPECT_EQ(&h, &tallies.histogram(histograms.Add({}, one), one));

  a.add(3);
  b.add(4);
  h.observe(0.5);
  tallies.flush();
  EXPECT_EQ(counters.Add({{"model", "m"}}).Value(), 7.0);
  EXPECT_EQ(histograms.Add({}, one).Collect().histogram.sample_count, 1U);
  a.add(1);
  tallies.flush();
  tallies.flush();
  EXPECT_EQ(counters.Add({{"model", "m"}}).Value(), 8.0);
}

}  // namespace
}  // namespace infergate::gateway
