#include <fmt/format.h>
#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <optional>

#include "bench/model_breakdown.hpp"
#include "bench/progress.hpp"
#include "bench/records_jsonl.hpp"
#include "bench/repeats.hpp"
#include "bench/server_metrics.hpp"
#include "bench/summary.hpp"
#include "bench/summary_json.hpp"
#include "bench/summary_table.hpp"
#include "bench/sweep_report.hpp"
#include "bench/timeline_report.hpp"
#include "cli/bench_plan.hpp"
#include "core/output_file.hpp"
#include "report/document.hpp"
#include "report/report_files.hpp"

namespace infergate::cli {

namespace {

namespace json = boost::json;

struct Measured {
  bench::RunResult result;
  bench::BenchSummary summary;
  bench::ModelSummaries by_model;              // a mixed-model run's, one model at a time
  std::vector<bench::Goodput> model_goodputs;  // with --slo, one for each of by_model
  std::optional<bench::SteadyState> steady;
  std::optional<bench::Cost> cost;
  std::optional<bench::Goodput> goodput;
  std::vector<bench::ServerSample> server;
  std::optional<std::string> server_error;
};

// Embeddings generate nothing: their runs are told apart by the input tokens they take in.
bool embeds(const Plan& plan) {
  return plan.workload_options.endpoint == openai::Endpoint::embeddings;
}

double steady_rate(const Plan& plan, const Measured& m) {
  return embeds(plan) ? bench::sustained_token_rate(m.summary, m.steady)
                      : bench::sustained_output_rate(m.summary, m.steady);
}

Measured measure_once(const Plan& plan, const bench::Workload& workload) {
  bench::ProgressLine progress(plan.load.requests, plan.load.duration_s);
  std::function<void(const bench::Progress&)> on_progress;
  if (progress.enabled()) {
    on_progress = [&](const bench::Progress& p) { progress.update(p); };
  }
  Measured m;
  std::optional<bench::ServerMetricsScraper> scraper;
  if (!plan.args.server_metrics.empty()) {
    scraper.emplace(http::parse_url(plan.args.server_metrics), std::chrono::seconds(1), plan.target.tls);
  }
  m.result = bench::run_load(plan.target, workload, plan.load, on_progress);
  if (scraper) {
    m.server = scraper->finish();
    m.server_error = scraper->error();
  }
  progress.finish();
  for (const auto& failure : m.result.warmup_failures) {
    fmt::print(stderr, "warmup request failed: {}\n", failure);
  }
  m.summary = bench::summarize_result(m.result, extra_percentiles(plan.args));
  m.by_model = bench::summarize_by_model(m.result.records, workload.model_names(), extra_percentiles(plan.args));
  m.steady = bench::steady_state(m.result.records);
  if (!plan.pricing.empty()) {
    m.cost = bench::measure_cost(plan.pricing, m.summary, bench::sustained_token_rate(m.summary, m.steady));
  }
  if (!plan.slos.empty()) {
    m.goodput = bench::measure_goodput(m.result.records, m.summary, plan.slos);
    m.model_goodputs = bench::goodput_by_model(m.result.records, m.by_model, plan.slos);
  }
  return m;
}

std::string load_shape(const bench::LoadOptions& load) {
  if (load.replay_speed) {
    return *load.replay_speed == 1 ? std::string("replayed at its own times")
                                   : fmt::format("replayed at {:g}x speed", *load.replay_speed);
  }
  return load.rate ? fmt::format("rate {} req/s ({})", *load.rate, load.arrival->to_string())
                   : fmt::format("concurrency {}", load.concurrency);
}

// The run's JSON beside its summary: steady state, cost and goodput.
json::object measured_json(const Plan& plan, const Measured& m) {
  json::object out{
      {"steady_state", m.steady ? json::value(bench::steady_state_json(*m.steady)) : json::value(nullptr)}};
  if (!m.by_model.empty()) {
    out["by_model"] = bench::model_breakdown_json(m.by_model, m.model_goodputs, plan.slos);
  }
  if (m.cost) {
    out["cost"] = bench::cost_json(plan.pricing, *m.cost);
  }
  if (m.goodput) {
    out["goodput"] = bench::goodput_json(*m.goodput, plan.slos);
  }
  return out;
}

void single_run(const Plan& plan) {
  const Measured m = measure_once(plan, plan.workload);
  const int stopped = m.result.interrupted_by;
  bench::print_summary_table(
      stdout, m.summary,
      fmt::format("{}, {}, {}{}", plan.heading, load_shape(plan.load), bench::describe_lengths(plan.workload_options),
                  stopped != 0 ? fmt::format(", interrupted by {}", signal_name(stopped)) : ""),
      plan.workload_options.ignore_eos);
  bench::print_model_breakdown(stdout, m.by_model, m.model_goodputs);
  bench::print_steady_state(stdout, m.steady);
  if (plan.roofline) {
    bench::print_roofline(stdout, *plan.roofline, m.summary);
  }
  if (!plan.args.server_metrics.empty()) {
    bench::print_server_series(stdout, m.server, m.server_error);
  }
  if (m.cost) {
    bench::print_cost(stdout, plan.pricing, *m.cost);
  }
  if (m.goodput) {
    bench::print_goodput(stdout, *m.goodput, plan.slos, embeds(plan));
  }
  json::object extra = measured_json(plan, m);
  json::object series = bench::time_series_json(bench::time_series(m.result.records));
  if (!plan.args.server_metrics.empty() && !m.result.records.empty()) {
    series["server"] = bench::server_series_json(m.server, bench::first_due(m.result.records));
  }
  extra["timeseries"] = std::move(series);
  if (stopped != 0) {
    extra["interrupted"] = signal_name(stopped);
  }
  emit_result(plan, &m.summary, extra);
  if (!plan.args.records.empty()) {
    bench::write_records_jsonl(plan.args.records, m.result.records, plan.workload.model_names());
  }
  if (stopped != 0) {
    say_interrupted(stopped, fmt::format("the {} requests that finished before it", m.result.records.size()));
    end_interrupted(stopped);
  }
  if (m.summary.completed == 0 && m.summary.failed > 0) {
    throw CLI::RuntimeError(1);
  }
}

// Each run sends fresh prompts (seed + run index) so a server's prefix cache cannot carry one run
// into the next.
void repeated_runs(const Plan& plan) {
  const int runs = plan.args.runs;
  fmt::print("{}, {}, {}, {} runs\n", plan.heading, load_shape(plan.load),
             bench::describe_lengths(plan.workload_options), runs);
  std::vector<bench::BenchSummary> summaries;
  std::vector<double> steady_rates;
  std::vector<double> good_rates;       // with --slo
  std::vector<double> per_million_usd;  // with a price
  std::vector<bench::RequestRecord> records;
  json::array each;
  summaries.reserve(static_cast<std::size_t>(runs));
  steady_rates.reserve(static_cast<std::size_t>(runs));
  bool anything_succeeded = false;
  int stopped = 0;
  for (int k = 0; k < runs && stopped == 0; ++k) {
    bench::WorkloadOptions options = plan.workload_options;
    options.seed = plan.workload_options.seed + static_cast<std::uint64_t>(k);
    const bench::Workload workload(options);
    Measured m = measure_once(plan, workload);
    const bench::BenchSummary& s = m.summary;
    stopped = m.result.interrupted_by;
    const std::string rates =
        embeds(plan) ? fmt::format("{:.1f} input tok/s (steady {:.1f}), TTFT p50/p99 {:.1f}/{:.1f} ms",
                                   bench::token_throughput(s), steady_rate(plan, m), s.ttft_ms.p50, s.ttft_ms.p99)
                     : fmt::format(
                           "{:.1f} output tok/s (steady {:.1f}), TTFT p50/p99 {:.1f}/{:.1f} ms, TPOT "
                           "p50/p99 {:.2f}/{:.2f} ms",
                           s.output_tokens_per_s, steady_rate(plan, m), s.ttft_ms.p50, s.ttft_ms.p99, s.tpot_ms.p50,
                           s.tpot_ms.p99);
    fmt::print("  run {}/{}: {} completed, {} failed, {}{}\n", k + 1, runs, s.completed, s.failed, rates,
               stopped != 0 ? fmt::format(" (interrupted by {})", signal_name(stopped)) : "");
    if (!plan.args.server_metrics.empty()) {
      fmt::print("    server {}\n", bench::describe_server_peaks(m.server, m.server_error));
    }
    anything_succeeded = anything_succeeded || s.completed > 0;
    json::object run = measured_json(plan, m);
    run["run"] = k + 1;
    run["seed"] = options.seed;
    run["summary"] = bench::summary_json(s);
    if (!plan.args.server_metrics.empty() && !m.result.records.empty()) {
      run["server"] = bench::server_series_json(m.server, first_due(m.result.records));
    }
    if (stopped != 0) {
      run["interrupted"] = signal_name(stopped);
    }
    each.push_back(std::move(run));
    summaries.push_back(s);
    steady_rates.push_back(steady_rate(plan, m));
    if (m.goodput) {
      good_rates.push_back(m.goodput->requests_per_s);
    }
    if (const std::optional<double> usd = m.cost ? bench::headline_per_million(*m.cost) : std::nullopt) {
      per_million_usd.push_back(*usd);
    }
    if (!plan.args.records.empty()) {
      for (auto& r : m.result.records) {
        r.run = k + 1;
        records.push_back(std::move(r));
      }
    }
  }
  bench::RepeatedFigures figures = bench::repeated_figures(summaries, steady_rates, embeds(plan));
  for (auto [name, values] :
       {std::pair{"goodput_requests_per_s", &good_rates}, {"usd_per_million_tokens", &per_million_usd}}) {
    if (!values->empty() && values->size() == summaries.size()) {
      figures.names.emplace_back(name);
      figures.spreads.push_back(bench::spread(*values));
    }
  }
  bench::print_repeated(stdout, figures);
  json::object repeated = bench::repeated_json(figures);
  repeated["runs"] = std::move(each);
  emit_result(plan, nullptr, {{"runs", std::move(repeated)}});
  if (!plan.args.records.empty()) {
    bench::write_records_jsonl(plan.args.records, records, plan.workload.model_names());
  }
  if (stopped != 0) {
    say_interrupted(
        stopped, fmt::format("the {} runs before it and the requests of the last that finished", summaries.size() - 1));
    end_interrupted(stopped);
  }
  if (!anything_succeeded) {
    throw CLI::RuntimeError(1);
  }
}

}  // namespace

void emit_result(const Plan& plan, const bench::BenchSummary* summary, const json::object& extra) {
  const BenchArgs& args = plan.args;
  const report::ReportFiles files{args.markdown, args.csv, args.html};
  if (args.json.empty() && !files.any()) {
    return;
  }
  const json::object document = bench::summary_document(plan.config, summary, extra);
  if (!args.json.empty()) {
    write_output(args.json, json::serialize(document) + "\n");
  }
  if (!files.any()) {
    return;
  }
  const std::vector<report::RunDocument> documents{
      report::document_from_json(document, report::default_label(plan.config, args.json))};
  report::write_reports(documents, files);
}

void run_measurements(const Plan& plan) {
  if (plan.args.runs > 1) {
    repeated_runs(plan);
  } else {
    single_run(plan);
  }
}

}  // namespace infergate::cli
