#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bench/max_load.hpp"
#include "bench/records_jsonl.hpp"
#include "bench/server_metrics.hpp"
#include "bench/summary.hpp"
#include "bench/sweep_report.hpp"
#include "bench/timeline.hpp"
#include "cli/bench_plan.hpp"

namespace infergate::cli {

namespace {

// Requests measured at one sweep level unless --requests or --duration says otherwise: enough for
// the in-flight count to settle at the level.
std::uint64_t default_requests(bench::SweepSpec::Kind kind, double level) {
  const double scaled = kind == bench::SweepSpec::Kind::concurrency ? 8 * level : 10 * level;
  return static_cast<std::uint64_t>(std::max(32.0, std::ceil(scaled)));
}

// --records: every level's requests (moved out of `points`), in the order of the levels, each
// naming its level.
void write_level_records(const Plan& plan, std::vector<bench::SweepPoint>& points) {
  if (plan.args.records.empty()) {
    return;
  }
  std::vector<bench::RequestRecord> records;
  for (bench::SweepPoint& p : points) {
    records.insert(records.end(), std::make_move_iterator(p.records.begin()), std::make_move_iterator(p.records.end()));
    p.records.clear();
  }
  bench::write_records_jsonl(plan.args.records, records, plan.workload.model_names());
}

}  // namespace

int measure_level(const Plan& plan, bench::SweepSpec::Kind kind, double level, std::vector<bench::SweepPoint>& points) {
  const BenchArgs& args = plan.args;
  bench::LoadOptions load = plan.load;
  if (kind == bench::SweepSpec::Kind::concurrency) {
    load.concurrency = static_cast<int>(level);
    load.rate.reset();
    load.arrival.reset();
  } else if (kind == bench::SweepSpec::Kind::rate) {
    load.rate = level;
    load.arrival = bench::ArrivalProcess::parse(args.arrival, level);
  } else {
    load.replay_speed = level;  // the trace, as many of its requests as the plan replays
  }
  if (kind != bench::SweepSpec::Kind::speed) {
    load.requests = args.requests > 0 ? args.requests : (args.duration > 0 ? 0 : default_requests(kind, level));
  }
  fmt::print(stderr, "measuring {} {:g} ({} requests)\n", bench::kind_name(kind), level, load.requests);
  // A level lasts seconds: the server is read four times a second so that each has its peaks.
  std::optional<bench::ServerMetricsScraper> scraper;
  if (!args.server_metrics.empty()) {
    scraper.emplace(http::parse_url(args.server_metrics), std::chrono::milliseconds(250), plan.target.tls);
  }
  bench::RunResult result = bench::run_load(plan.target, plan.workload, load);
  std::optional<std::vector<bench::ServerSample>> server;
  if (scraper) {
    server = scraper->finish();
  }
  if (result.interrupted_by != 0) {
    fmt::print(stderr, "level {:g} was interrupted: left out\n", level);
    return result.interrupted_by;
  }
  const std::vector<double> more = extra_percentiles(plan.args);
  bench::SweepPoint point;
  point.level = level;
  point.summary = bench::summarize_result(result, more);
  point.steady = bench::steady_state(result.records);
  point.by_model = bench::summarize_by_model(result.records, plan.workload.model_names(), more);
  if (!plan.slos.empty()) {
    point.goodput = bench::measure_goodput(result.records, point.summary, plan.slos);
    point.model_goodputs = bench::goodput_by_model(result.records, point.by_model, plan.slos);
  }
  if (!plan.pricing.empty()) {
    point.cost =
        bench::measure_cost(plan.pricing, point.summary, bench::sustained_token_rate(point.summary, point.steady));
  }
  if (scraper) {
    point.server = std::move(server);
    point.server_error = scraper->error();
    point.started_ns = bench::first_due(result.records);
  }
  if (!plan.args.records.empty()) {
    for (bench::RequestRecord& r : result.records) {
      r.level = level;
    }
    point.records = std::move(result.records);
  }
  const auto at = std::upper_bound(points.begin(), points.end(), level,
                                   [](double l, const bench::SweepPoint& p) { return l < p.level; });
  points.insert(at, std::move(point));
  return 0;
}

// The highest rate (or, replaying a trace, speed) that meets every SLO: doubling, then bisection.
// Prints the levels measured and returns the JSON of the search.
boost::json::object find_max_load(const Plan& plan, int& interrupted_by) {
  const BenchArgs& args = plan.args;
  const auto kind = plan.load.replay_speed ? bench::SweepSpec::Kind::speed : bench::SweepSpec::Kind::rate;
  const double start = plan.load.replay_speed ? *plan.load.replay_speed : args.rate > 0 ? args.rate : 1.0;
  bench::MaxLoadSearch search(start, args.max_load_precision, args.max_load_ceiling);
  std::vector<bench::SweepPoint> points;
  while (auto rate = search.next()) {
    if (const int stopped = measure_level(plan, kind, *rate, points)) {
      interrupted_by = stopped;
      break;
    }
    const auto it = std::find_if(points.begin(), points.end(), [&](const auto& p) { return p.level == *rate; });
    search.record(*rate, it->goodput->met);
  }
  bench::print_max_load(stdout, points, search.passing(), search.failing(), kind);
  write_level_records(plan, points);
  boost::json::object out =
      bench::max_load_json(points, search.passing(), search.failing(), plan.slos, plan.pricing, kind);
  if (interrupted_by != 0) {
    out["interrupted"] = signal_name(interrupted_by);
  }
  return out;
}

// Runs the workload at each level of the sweep (or finds the levels, for --sweep auto), prints
// the table with the knee and returns the JSON of it.
boost::json::object run_sweep(const Plan& plan, int& interrupted_by) {
  const BenchArgs& args = plan.args;
  const bench::SweepSpec spec = bench::parse_sweep(args.sweep);
  const bench::KneeRule rule{args.knee_gain, args.knee_latency_rise};
  std::vector<bench::SweepPoint> points;
  if (spec.automatic()) {
    while (auto next = bench::next_auto_level(points, rule, args.sweep_max, spec.kind)) {
      if ((interrupted_by = measure_level(plan, spec.kind, *next, points)) != 0) {
        break;
      }
    }
  } else {
    for (double level : spec.levels) {
      if ((interrupted_by = measure_level(plan, spec.kind, level, points)) != 0) {
        break;
      }
    }
  }
  const auto knee = bench::find_knee(points, rule);
  bench::print_sweep_table(stdout, spec, points, knee, rule);
  write_level_records(plan, points);
  boost::json::object out = bench::sweep_json(spec, points, knee, rule, plan.slos, plan.pricing);
  if (interrupted_by != 0) {
    out["interrupted"] = signal_name(interrupted_by);
  }
  return out;
}

}  // namespace infergate::cli
