#pragma once
// The columns of a sweep's (or max-load search's) per-level table, which the Markdown and HTML
// reports both draw: the rate the levels are told apart by, and the latency percentiles.
#include <string>
#include <vector>

#include "bench/summary.hpp"
#include "report/document.hpp"

namespace infergate::report {

struct LatencyColumn {
  std::string title;  // "TTFT p99.9"
  bench::Stat bench::BenchSummary::*stat = nullptr;
  double p = 50;

  [[nodiscard]] double of(const bench::BenchSummary& summary) const;
};

struct LevelColumns {
  bool prompts = false;    // the levels generated nothing (embeddings)
  std::string rate_title;  // "output tok/s", or "input tok/s" for levels that generated nothing
  // TTFT, then TPOT (not for levels that generated nothing), each at p50, p99 and the --percentiles
  // past p99 the levels hold.
  std::vector<LatencyColumn> latencies;

  [[nodiscard]] double rate(const bench::BenchSummary& summary) const;
};

LevelColumns level_columns(const RunDocument& document);

}  // namespace infergate::report
