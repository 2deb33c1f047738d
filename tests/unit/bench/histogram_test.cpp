#include "bench/histogram.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <random>
#include <stdexcept>

namespace infergate::bench {
namespace {

std::vector<double> lognormal_samples(int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(3.0, 0.8);  // milliseconds, a long right tail
  std::vector<double> out(static_cast<std::size_t>(n));
  for (auto& v : out) {
    v = d(rng);
  }
  return out;
}

TEST(LogHistogram, PercentilesWithinOnePercentOfTheSamples) {
  std::vector<double> samples = lognormal_samples(20000, 1);
  LogHistogram h;
  for (double v : samples) {
    h.add(v);
  }
  std::vector<double> sorted = samples;
  const Stat exact = summarize(sorted);
  const Stat approx = h.stat();
  EXPECT_EQ(approx.count, exact.count);
  EXPECT_NEAR(approx.mean, exact.mean, 1e-9 * exact.mean);
  EXPECT_DOUBLE_EQ(approx.min, exact.min);
  EXPECT_DOUBLE_EQ(approx.max, exact.max);
  for (auto [a, e] : {std::pair{approx.p50, exact.p50}, {approx.p90, exact.p90}, {approx.p99, exact.p99}}) {
    EXPECT_NEAR(a, e, 0.01 * e);
  }
}

TEST(LogHistogram, MorePercentilesWithinOnePercentOfTheSamples) {
  std::vector<double> samples = lognormal_samples(20000, 2);
  LogHistogram h;
  for (double v : samples) {
    h.add(v);
  }
  const std::vector<double> more{1, 99.9};
  const Stat exact = summarize(samples, more);
  const Stat approx = h.stat(more);
  ASSERT_EQ(approx.more.size(), 2u);
  for (const Quantile& q : approx.more) {
    EXPECT_NEAR(q.value, *exact.at(q.p), 0.01 * *exact.at(q.p)) << q.p;
  }
}

TEST(LogHistogram, MergingEqualsPoolingTheSamples) {
  const auto a = lognormal_samples(5000, 2);
  const auto b = lognormal_samples(7000, 3);
  LogHistogram ha;
  LogHistogram hb;
  LogHistogram pooled;
  for (double v : a) {
    ha.add(v);
    pooled.add(v);
  }
  for (double v : b) {
    hb.add(v);
    pooled.add(v);
  }
  ha.merge(hb);
  auto merged = ha.to_json();
  auto whole = pooled.to_json();
  EXPECT_NEAR(merged["sum"].as_double(), whole["sum"].as_double(), 1e-9 * whole["sum"].as_double());
  merged.erase("sum");  // added in another order
  whole.erase("sum");
  EXPECT_EQ(boost::json::serialize(merged), boost::json::serialize(whole));
  std::vector<double> all = a;
  all.insert(all.end(), b.begin(), b.end());
  const Stat exact = summarize(all);
  EXPECT_NEAR(ha.percentile(99), exact.p99, 0.01 * exact.p99);
  EXPECT_NEAR(ha.percentile(50), exact.p50, 0.01 * exact.p50);
}

TEST(LogHistogram, ZerosCdfAndBuckets) {
  LogHistogram h;
  h.add(0);
  h.add(0);
  h.add(10);
  h.add(20);
  EXPECT_NEAR(h.percentile(50), 5, 0.05);  // as numpy: halfway between the second and third samples
  EXPECT_DOUBLE_EQ(h.percentile(25), 0);
  EXPECT_DOUBLE_EQ(h.percentile(100), 20);  // the largest sample, exact
  const auto cdf = h.cdf();
  ASSERT_EQ(cdf.size(), 3u);
  EXPECT_DOUBLE_EQ(cdf[0].second, 0.5);
  EXPECT_DOUBLE_EQ(cdf.back().second, 1.0);
  const auto buckets = h.buckets();
  ASSERT_EQ(buckets.size(), 3u);
  EXPECT_EQ(buckets[0].count, 2u);
  EXPECT_LE(buckets[1].low, 10);
  EXPECT_GT(buckets[1].high, 10);
  EXPECT_NEAR(buckets[1].high / buckets[1].low, 1.01, 1e-9);
}

TEST(LogHistogram, JsonRoundTripAndRejectsInconsistentInput) {
  LogHistogram h;
  for (double v : lognormal_samples(300, 4)) {
    h.add(v);
  }
  const auto text = boost::json::serialize(h.to_json());
  const LogHistogram back = LogHistogram::from_json(boost::json::parse(text));
  EXPECT_EQ(boost::json::serialize(back.to_json()), text);

  auto broken = boost::json::parse(text).as_object();
  broken["count"] = 301;
  EXPECT_THROW(LogHistogram::from_json(broken), std::runtime_error);
  broken = boost::json::parse(text).as_object();
  broken["growth"] = 1.02;
  EXPECT_THROW(LogHistogram::from_json(broken), std::runtime_error);
  EXPECT_THROW(LogHistogram::from_json(boost::json::value(3)), std::runtime_error);
  // Counts that are no whole number of samples are refused by name, not cast or left to the parser.
  for (const boost::json::value& count : {boost::json::value(-1), boost::json::value(1e308), boost::json::value(2.5)}) {
    broken = boost::json::parse(text).as_object();
    broken["count"] = count;
    EXPECT_THROW(LogHistogram::from_json(broken), std::runtime_error) << count;
  }
  broken = boost::json::parse(text).as_object();
  broken["counts"].as_array()[0] = -1;
  try {
    LogHistogram::from_json(broken);
    ADD_FAILURE() << "a negative bucket count was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("counts whole numbers"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace infergate::bench
