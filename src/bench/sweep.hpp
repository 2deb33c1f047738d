#pragma once
// Load sweeps and the knee. `--sweep concurrency=1,2,4,8`, `--sweep rate=2,4,8` or, replaying a
// trace, `--sweep speed=1,2,4` runs the same workload at each level; `--sweep auto` starts with one stream and doubles
// until throughput stops rising or an SLO breaks, then measures halfway between the last two levels.
//
// The knee (printed with the result): the last level before the first step up whose throughput
// gain is under `gain` (default 10%) while p99 TTFT or p99 TPOT still rises by more than
// `latency_rise` (default 10%): beyond it, more load buys latency, not throughput.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/cost.hpp"
#include "bench/model_breakdown.hpp"
#include "bench/server_sample.hpp"
#include "bench/slo.hpp"
#include "bench/summary.hpp"
#include "bench/timeline.hpp"

namespace infergate::bench {

struct SweepSpec {
  enum class Kind { concurrency, rate, speed };  // speed: a replayed trace's, 2 = twice as fast
  Kind kind = Kind::concurrency;
  std::vector<double> levels;  // empty: auto
  [[nodiscard]] bool automatic() const { return levels.empty(); }
};

// Throws std::invalid_argument naming the problem.
SweepSpec parse_sweep(std::string_view text);
// "concurrency", "rate" or "speed": the level's name in tables and the JSON.
const char* kind_name(SweepSpec::Kind kind);

struct SweepPoint {
  double level = 0;
  BenchSummary summary;
  std::optional<Goodput> goodput;  // with --slo
  std::optional<SteadyState> steady;
  std::optional<Cost> cost;             // with --price or --hourly-cost
  ModelSummaries by_model;              // a mixed-model load's, one model at a time
  std::vector<Goodput> model_goodputs;  // with --slo, one for each of by_model
  std::vector<RequestRecord> records;   // with --records: the level's requests, to be written
  // With --server-metrics: the server's gauges while the level ran, on its time axis from
  // `started_ns` (its first request's due time), and the first read that failed.
  std::optional<std::vector<ServerSample>> server;
  std::optional<std::string> server_error;
  std::int64_t started_ns = 0;
};

struct KneeRule {
  double gain = 0.10;
  double latency_rise = 0.10;
  // `prompts`: the sweep's levels generated nothing (embeddings), so only TTFT can rise.
  [[nodiscard]] std::string describe(bool prompts = false) const;
};

struct Knee {
  std::size_t index = 0;  // into the points, sorted by level
  std::string reason;
};

// Points must be sorted by level. nullopt while throughput keeps rising (or fewer than 3 points).
std::optional<Knee> find_knee(const std::vector<SweepPoint>& points, const KneeRule& rule);

// The next level for `--sweep auto` after `points` (sorted by level): double until the knee or a
// broken SLO, then halfway between the knee's neighbour and the level after it; nullopt when done.
// `max_level` bounds the doubling.
std::optional<double> next_auto_level(const std::vector<SweepPoint>& points, const KneeRule& rule, double max_level,
                                      SweepSpec::Kind kind);

}  // namespace infergate::bench
