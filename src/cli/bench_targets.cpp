#include <fmt/format.h>
#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "bench/input_fit.hpp"
#include "bench/summary.hpp"
#include "bench/summary_json.hpp"
#include "bench/sweep_report.hpp"
#include "bench/target_spec.hpp"
#include "cli/bench_plan.hpp"
#include "core/output_file.hpp"
#include "report/document.hpp"
#include "report/figures.hpp"
#include "report/merge.hpp"
#include "report/report_files.hpp"
#include "report/tables.hpp"

namespace infergate::cli {

namespace {

namespace json = boost::json;

struct Side {
  bench::TargetSpec spec;
  bench::Target target;
  std::string model;
  bench::WorkloadOptions options;
  std::unique_ptr<bench::Workload> workload;
  bench::Pricing pricing;  // --price and --hourly-cost, or the target's own
  std::vector<bench::BenchSummary> rounds;
  std::vector<bench::RequestRecord> records;  // every round's, for the goodput of them all
  std::optional<bench::ClientCheck> worst_client;
  std::optional<bench::Cost> cost;  // over all its rounds, once they ran
  std::optional<bench::Goodput> goodput;
};

// Round r's share of the requests (or of the duration): the total split as evenly as it goes.
bench::LoadOptions round_load(const bench::LoadOptions& load, int rounds, int r, bool first_of_target) {
  bench::LoadOptions part = load;
  if (load.requests > 0) {
    const auto n = static_cast<std::uint64_t>(rounds);
    part.requests = load.requests / n + (static_cast<std::uint64_t>(r) < load.requests % n ? 1 : 0);
  } else {
    part.duration_s = load.duration_s / rounds;
  }
  part.warmup = first_of_target ? load.warmup : 0;
  part.ramp_up_s = first_of_target ? load.ramp_up_s : 0;
  part.seed = load.seed + static_cast<std::uint64_t>(r);
  part.first_index = static_cast<std::uint64_t>(r) << 32;  // fresh prompts each round, the same on every target
  return part;
}

// Writes the targets' documents as one file and renders them.
void emit_targets(const BenchArgs& args, json::object shared, json::array target_documents,
                  const std::vector<report::RunDocument>& documents) {
  if (!args.json.empty()) {
    json::object whole{
        {"schema", "infergate.bench/1"}, {"config", std::move(shared)}, {"targets", std::move(target_documents)}};
    write_output(args.json, json::serialize(whole) + "\n");
  }
  report::write_reports(documents, {args.markdown, args.csv, args.html});
}

json::object target_config(const json::object& config, const Side& side) {
  json::object c = config;
  c["label"] = side.spec.name;
  c["target"] = side.spec.name;
  c["base_url"] = side.target.base.to_string();
  c["model"] = side.model;
  if (!side.options.input_fits.empty()) {
    c["input_fit"] = bench::input_fit_json(side.options);
  }
  return c;
}

// --target with --sweep: every level measured on every target before the next level, in
// alternating order, so each target's sweep and knee come from the same stretch of time.
void sweep_side_by_side(const BenchArgs& args, std::vector<Side>& sides, const bench::LoadOptions& load,
                        const json::object& config, const std::vector<bench::Slo>& slos) {
  const bench::SweepSpec spec = bench::parse_sweep(args.sweep);
  if (spec.automatic()) {
    throw bench::BenchError(
        "--sweep auto picks levels per endpoint; with --target list them (e.g. "
        "--sweep concurrency=1,2,4,8,16)");
  }
  std::vector<json::object> configs;
  std::vector<Plan> plans;
  configs.reserve(sides.size());
  plans.reserve(sides.size());
  for (const auto& side : sides) {
    configs.push_back(target_config(config, side));
  }
  for (std::size_t k = 0; k < sides.size(); ++k) {
    plans.push_back(Plan{args, sides[k].target, sides[k].options, *sides[k].workload, load, slos, sides[k].pricing,
                         configs[k], "target " + sides[k].spec.name, std::nullopt});
  }
  std::vector<std::vector<bench::SweepPoint>> points(sides.size());
  fmt::print("infergate bench: {} targets, sweep over {}\n", sides.size(), args.sweep);
  int stopped = 0;
  for (std::size_t i = 0; i < spec.levels.size() && stopped == 0; ++i) {
    for (std::size_t j = 0; j < sides.size() && stopped == 0; ++j) {
      const std::size_t k = i % 2 == 0 ? j : sides.size() - 1 - j;
      fmt::print(stderr, "level {:g}: {}\n", spec.levels[i], sides[k].spec.name);
      stopped = measure_level(plans[k], spec.kind, spec.levels[i], points[k]);
    }
  }
  const bench::KneeRule rule{args.knee_gain, args.knee_latency_rise};
  std::vector<report::RunDocument> documents;
  json::array target_documents;
  for (std::size_t k = 0; k < sides.size(); ++k) {
    const auto knee = bench::find_knee(points[k], rule);
    fmt::print("\ntarget {}", sides[k].spec.name);
    bench::print_sweep_table(stdout, spec, points[k], knee, rule);
    json::object document = bench::summary_document(
        configs[k], nullptr, {{"sweep", bench::sweep_json(spec, points[k], knee, rule, slos, sides[k].pricing)}});
    documents.push_back(report::document_from_json(document, sides[k].spec.name));
    target_documents.push_back(std::move(document));
  }
  fmt::print("\nat each target's knee (or its highest level):\n");
  report::print_comparison(stdout, report::compare(documents));
  emit_targets(args, config, std::move(target_documents), documents);
  if (stopped != 0) {
    say_interrupted(stopped, "each target's levels measured whole before it");
    end_interrupted(stopped);
  }
}

}  // namespace

void run_side_by_side(const BenchArgs& args, const bench::WorkloadOptions& workload, const bench::LoadOptions& load,
                      const json::object& config, const std::vector<bench::Slo>& slos) {
  if (!args.records.empty()) {
    throw bench::BenchError("--records is not written for --target runs; measure one target to keep its records");
  }
  std::vector<Side> sides;
  sides.reserve(args.targets.size());
  for (const auto& text : args.targets) {
    Side side;
    side.spec = bench::parse_target_spec(text);
    for (const auto& other : sides) {
      if (other.spec.name == side.spec.name) {
        throw bench::BenchError(fmt::format("two targets are named '{}'; give each its own name", side.spec.name));
      }
    }
    side.target = make_target(args, side.spec.url, side.spec.api_key_env);
    const std::string requested = workload.mix.empty() ? "" : workload.mix.front().name;
    side.model = choose_model(side.target, side.spec.model.empty() ? requested : side.spec.model);
    side.options = workload;
    side.options.model = side.model;
    side.pricing = pricing_of(args, &side.spec);
    if (args.fit_input_tokens) {  // each server counts by its own tokenizer and template
      side.options.input_fits = bench::probe_input_fits(side.target, side.options);
    }
    side.workload = std::make_unique<bench::Workload>(side.options);
    sides.push_back(std::move(side));
  }
  if (!args.sweep.empty()) {
    sweep_side_by_side(args, sides, load, config, slos);
    return;
  }
  const int rounds = static_cast<int>(
      load.requests > 0 ? std::min<std::uint64_t>(static_cast<std::uint64_t>(args.rounds), load.requests)
                        : args.rounds);
  fmt::print("infergate bench: {} targets side by side, {} rounds, {}\n", sides.size(), rounds,
             bench::describe_lengths(workload));
  // A B C, then C B A, ...: each target runs as often early as late, so drift in the machine or
  // the network lands on all of them alike.
  int stopped = 0;
  for (int r = 0; r < rounds && stopped == 0; ++r) {
    for (std::size_t k = 0; k < sides.size() && stopped == 0; ++k) {
      Side& side = sides[r % 2 == 0 ? k : sides.size() - 1 - k];
      const bench::LoadOptions part = round_load(load, rounds, r, side.rounds.empty());
      fmt::print(stderr, "round {}/{}: {}\n", r + 1, rounds, side.spec.name);
      const bench::RunResult result = bench::run_load(side.target, *side.workload, part);
      stopped = result.interrupted_by;  // the round's finished requests still count
      bench::BenchSummary summary = bench::summarize_result(result, extra_percentiles(args));
      if (summary.client &&
          (!side.worst_client || summary.client->lag_p99_ms > side.worst_client->lag_p99_ms || summary.client->bound)) {
        side.worst_client = summary.client;
      }
      side.rounds.push_back(std::move(summary));
      if (!slos.empty()) {
        side.records.insert(side.records.end(), std::make_move_iterator(result.records.begin()),
                            std::make_move_iterator(result.records.end()));
      }
    }
  }

  std::vector<report::RunDocument> documents;
  json::array target_documents;
  for (auto& side : sides) {
    if (side.rounds.empty()) {  // a signal came before its first round
      continue;
    }
    bench::BenchSummary merged = report::merge_summaries(side.rounds, report::Pooling::sequential);
    merged.client = side.worst_client;
    json::object side_config = target_config(config, side);
    side_config["rounds"] = rounds;
    json::object extra;
    // Rounds ran one after another: the target's rate is over their summed time, steady or not.
    if (!side.pricing.empty()) {
      side.cost = bench::measure_cost(side.pricing, merged, bench::token_throughput(merged));
      extra["cost"] = bench::cost_json(side.pricing, *side.cost);
    }
    if (!slos.empty()) {
      side.goodput = bench::measure_goodput(side.records, merged, slos);
      extra["goodput"] = bench::goodput_json(*side.goodput, slos);
    }
    json::object document = bench::summary_document(side_config, &merged, extra);
    documents.push_back(report::document_from_json(document, side.spec.name));
    target_documents.push_back(std::move(document));
    for (const auto& [cls, failure] : merged.failures) {
      fmt::print("  {}: {} x {}, e.g. {}\n", side.spec.name, failure.count, cls,
                 failure.examples.empty() ? "" : failure.examples.front());
    }
    if (merged.client && merged.client->bound) {
      fmt::print("  {}: WARNING the client limited this target's rounds ({})\n", side.spec.name, merged.client->reason);
    }
  }
  if (!documents.empty()) {
    report::print_comparison(stdout, report::compare(documents));
  }
  for (const auto& side : sides) {
    if (!side.cost && !side.goodput) {
      continue;
    }
    fmt::print("  target {}\n", side.spec.name);
    if (side.cost) {
      bench::print_cost(stdout, side.pricing, *side.cost);
    }
    if (side.goodput) {
      bench::print_goodput(stdout, *side.goodput, slos, args.endpoint == "embeddings");
    }
  }
  json::object shared = config;
  shared["rounds"] = rounds;
  if (stopped != 0) {
    shared["interrupted"] = signal_name(stopped);
  }
  emit_targets(args, std::move(shared), std::move(target_documents), documents);
  if (stopped != 0) {
    say_interrupted(stopped, "the rounds that finished before it and the requests of the last that finished");
    end_interrupted(stopped);
  }
  bool anything_succeeded = false;
  for (const auto& side : sides) {
    for (const auto& s : side.rounds) {
      anything_succeeded = anything_succeeded || s.completed > 0;
    }
  }
  if (!anything_succeeded) {
    throw CLI::RuntimeError(1);
  }
}

}  // namespace infergate::cli
