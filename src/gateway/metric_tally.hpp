#pragma once
// Request-path counts for prometheus-cpp series, kept as relaxed atomic integers and added to the
// series when /metrics is scraped (Envoy keeps its stats the same way). prometheus-cpp's
// Histogram::Observe takes a mutex every I/O thread shares and adds a bucket and the sum as doubles
// by compare-and-swap; three histograms and three counters per request cost the gateway about 850
// instructions. A tally costs a search of its bucket and two additions.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace prometheus {
class Counter;
class Histogram;
}  // namespace prometheus

namespace infergate::gateway {

// Observations, in seconds, of one histogram series with these bucket boundaries.
class HistogramTally {
 public:
  HistogramTally(prometheus::Histogram& series, std::vector<double> boundaries);
  void observe(double seconds);
  // Adds what was observed since the last flush to the series. Calls must not overlap.
  void flush();

 private:
  prometheus::Histogram& series_;
  const std::vector<double> boundaries_;
  std::vector<std::atomic<std::uint64_t>> counts_;  // one per boundary, and the +Inf bucket
  std::atomic<std::int64_t> sum_ns_{0};             // an integer, so that adding it is one instruction
  std::vector<std::uint64_t> flushed_counts_;
  std::int64_t flushed_sum_ns_ = 0;
};

class CounterTally {
 public:
  explicit CounterTally(prometheus::Counter& series) : series_(series) {}
  void add(std::uint64_t n) { total_.fetch_add(n, std::memory_order_relaxed); }
  // Adds what was counted since the last flush to the series. Calls must not overlap.
  void flush();

 private:
  prometheus::Counter& series_;
  std::atomic<std::uint64_t> total_{0};
  std::uint64_t flushed_ = 0;
};

// One tally per series, shared by every configuration snapshot's metrics as the series are
// (prometheus-cpp hands back the same series for the same labels after a reload): what a request
// on an old snapshot counts reaches the series at the next scrape.
class MetricTallies {
 public:
  HistogramTally& histogram(prometheus::Histogram& series, const std::vector<double>& boundaries);
  CounterTally& counter(prometheus::Counter& series);
  void flush();

 private:
  std::mutex mutex_;
  std::map<const prometheus::Histogram*, std::unique_ptr<HistogramTally>> histograms_;
  std::map<const prometheus::Counter*, std::unique_ptr<CounterTally>> counters_;
};

}  // namespace infergate::gateway
