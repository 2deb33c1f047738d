#include "gateway/metric_tally.hpp"

#include <prometheus/counter.h>
#include <prometheus/histogram.h>

#include <algorithm>

namespace infergate::gateway {

HistogramTally::HistogramTally(prometheus::Histogram& series, std::vector<double> boundaries)
    : series_(series),
      boundaries_(std::move(boundaries)),
      counts_(boundaries_.size() + 1),
      flushed_counts_(boundaries_.size() + 1) {}

void HistogramTally::observe(double seconds) {
  // Bucket i counts values up to boundaries_[i] (Prometheus's "le"), as prometheus-cpp's does.
  const auto bucket = static_cast<std::size_t>(
      std::distance(boundaries_.begin(), std::lower_bound(boundaries_.begin(), boundaries_.end(), seconds)));
  counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_ns_.fetch_add(static_cast<std::int64_t>(seconds * 1e9), std::memory_order_relaxed);  // to the nanosecond
}

void HistogramTally::flush() {
  std::vector<double> increments(counts_.size());
  bool any = false;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    const std::uint64_t now = counts_[i].load(std::memory_order_relaxed);
    increments[i] = static_cast<double>(now - flushed_counts_[i]);
    any = any || now != flushed_counts_[i];
    flushed_counts_[i] = now;
  }
  const std::int64_t sum_ns = sum_ns_.load(std::memory_order_relaxed);
  if (any || sum_ns != flushed_sum_ns_) {
    series_.ObserveMultiple(increments, static_cast<double>(sum_ns - flushed_sum_ns_) / 1e9);
    flushed_sum_ns_ = sum_ns;
  }
}

void CounterTally::flush() {
  const std::uint64_t now = total_.load(std::memory_order_relaxed);
  if (now != flushed_) {
    series_.Increment(static_cast<double>(now - flushed_));
    flushed_ = now;
  }
}

HistogramTally& MetricTallies::histogram(prometheus::Histogram& series, const std::vector<double>& boundaries) {
  const std::lock_guard lock(mutex_);
  auto& tally = histograms_[&series];
  if (!tally) {
    tally = std::make_unique<HistogramTally>(series, boundaries);
  }
  return *tally;
}

CounterTally& MetricTallies::counter(prometheus::Counter& series) {
  const std::lock_guard lock(mutex_);
  auto& tally = counters_[&series];
  if (!tally) {
    tally = std::make_unique<CounterTally>(series);
  }
  return *tally;
}

void MetricTallies::flush() {
  const std::lock_guard lock(mutex_);
  for (auto& [series, tally] : histograms_) {
    tally->flush();
  }
  for (auto& [series, tally] : counters_) {
    tally->flush();
  }
}

}  // namespace infergate::gateway
