#include "report/level_columns.hpp"

#include <fmt/format.h>

#include "bench/percentiles.hpp"

namespace infergate::report {

double LatencyColumn::of(const bench::BenchSummary& summary) const {
  return (summary.*stat).at(p).value_or(0);
}

double LevelColumns::rate(const bench::BenchSummary& summary) const {
  return bench::measured_rate(summary, prompts);
}

LevelColumns level_columns(const RunDocument& d) {
  const bool prompts = bench::prompt_only(d.levels, &Level::summary);
  LevelColumns columns{prompts, prompts ? "input tok/s" : "output tok/s", {}};
  // Every level of one document was asked the same --percentiles.
  const std::vector<bench::Quantile> more =
      d.levels.empty() ? std::vector<bench::Quantile>{} : d.levels.front().summary.ttft_ms.more;
  auto add = [&](const char* metric, bench::Stat bench::BenchSummary::*stat) {
    for (const double p : {50.0, 99.0}) {
      columns.latencies.push_back({fmt::format("{} {}", metric, bench::percentile_key(p)), stat, p});
    }
    for (const bench::Quantile& q : more) {
      columns.latencies.push_back({fmt::format("{} {}", metric, bench::percentile_key(q.p)), stat, q.p});
    }
  };
  add("TTFT", &bench::BenchSummary::ttft_ms);
  if (!prompts) {
    add("TPOT", &bench::BenchSummary::tpot_ms);
  }
  return columns;
}

}  // namespace infergate::report
