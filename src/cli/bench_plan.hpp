#pragma once
// What one `infergate bench` invocation measures with, shared by its modes: one run or repeated
// runs (bench_runs.cpp), a sweep or the max-load search (bench_levels.cpp).
#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/cost.hpp"
#include "bench/roofline_context.hpp"
#include "bench/runner.hpp"
#include "bench/slo.hpp"
#include "bench/sweep.hpp"
#include "bench/target_spec.hpp"
#include "bench/workload.hpp"
#include "cli/interrupted.hpp"

namespace infergate::cli {

struct BenchArgs {
  std::string base_url;
  std::string model;
  std::string api_key;
  std::string endpoint = "chat";
  std::vector<std::string> sim_profiles{"gemma-4-31b:bf16@h200"};  // --sim, repeatable: one model each
  double sim_speedup = 1.0;
  int sim_max_num_seqs = 256;
  int concurrency = 1;
  double rate = 0;
  std::string arrival = "poisson";
  int max_concurrency = 0;
  std::uint64_t requests = 0;
  double duration = 0;
  int warmup = 0;
  std::uint64_t seed = 1;
  std::string input_tokens = "512";
  std::string output_tokens = "128";
  std::string prompts;
  bool no_stream = false;
  bool no_ignore_eos = false;
  bool fit_input_tokens = false;     // size prompts in the server's tokens (bench/input_fit.hpp)
  std::string extra_body;            // --extra-body: a JSON object
  std::string percentiles;           // --percentiles: beyond p50, p90, p95, p99
  std::vector<std::string> headers;  // --header "Name: value"
  std::string json;
  std::string records;
  bool trace = false;
  double timeout_s = 600;
  bool insecure = false;
  bool no_busy_poll = false;
  std::string sweep;
  std::string slo;
  double knee_gain = 0.10;
  double knee_latency_rise = 0.10;
  double sweep_max = 1024;
  bool find_max_load = false;
  double max_load_precision = 0.1;
  double max_load_ceiling = 10'000;
  std::string price;
  double hourly_cost = 0;
  int runs = 1;
  double ramp_up = 0;
  int prefix_groups = 0;
  int prefix_tokens = 0;
  int turns = 1;
  int batch = 1;            // --batch: texts per embeddings request
  std::string replay;       // --replay: a request trace to send at its own times
  double replay_speed = 1;  // --replay-speed
  double think_time = 0;
  std::string label;
  std::string markdown;
  std::string csv;
  std::string html;
  std::vector<std::string> targets;
  int rounds = 4;
  std::string model_profile;
  std::string hardware;
  std::string server_metrics;
  int threads = 1;
  int workers = 1;
  int worker_index = 0;
  int worker_count = 0;   // set in a worker process that --workers started
  int worker_parent = 0;  // and the process that started it
};

struct Plan {
  const BenchArgs& args;
  const bench::Target& target;
  const bench::WorkloadOptions& workload_options;
  const bench::Workload& workload;
  const bench::LoadOptions& load;
  const std::vector<bench::Slo>& slos;
  const bench::Pricing& pricing;
  const boost::json::object& config;  // the JSON's "config"
  std::string heading;                // "infergate bench: MODEL at URL (simulator PROFILE)"
  std::optional<bench::RooflineContext> roofline;
};

// The endpoint at `url` with the key from $api_key_env (when named), else --api-key or
// $OPENAI_API_KEY.
bench::Target make_target(const BenchArgs& args, const std::string& url, const std::string& api_key_env);
// `requested`, or the first model the endpoint lists; throws BenchError when it cannot be listed.
std::string choose_model(const bench::Target& target, const std::string& requested);
// --percentiles as every summary of the run computes them (bench/percentile_list.hpp).
std::vector<double> extra_percentiles(const BenchArgs& args);
// --price and --hourly-cost, or `target`'s own prices alone where it names any (a hosted API's per
// token beside hardware's by the hour).
bench::Pricing pricing_of(const BenchArgs& args, const bench::TargetSpec* target = nullptr);
// --slo; throws BenchError for an objective the endpoint cannot have (embeddings: TPOT, ITL).
std::vector<bench::Slo> slos_of(const BenchArgs& args);
// The "config" fields that describe the workload and the load (not the endpoint).
boost::json::object workload_config(const BenchArgs& args, const bench::WorkloadOptions& workload,
                                    const bench::LoadOptions& load);
// --workers N: starts N copies of this command, each sending its share of the load at `base_url`,
// and merges their results exactly (histograms pooled); prints and writes the merged result.
// `slos`: slos_of(args), checked before anything was started.
void run_workers(const BenchArgs& args, const std::string& base_url, const std::vector<bench::Slo>& slos);
// In a worker: ends this process as soon as `parent` (the process that started it) ends, so that a
// killed parent does not leave its workers sending load at an endpoint nobody reads results from.
void end_with_parent(int parent);
// --target: the same load on every target, interleaved in --rounds; prints them side by side.
void run_side_by_side(const BenchArgs& args, const bench::WorkloadOptions& workload, const bench::LoadOptions& load,
                      const boost::json::object& config, const std::vector<bench::Slo>& slos);

// Runs the workload at one load level and inserts the result into `points` (sorted by level).
// Returns the signal that cut the level short (bench/interrupt.hpp), whose partial result is
// left out: a level's figures hold only when all of it ran. 0 when it ran to its end.
int measure_level(const Plan& plan, bench::SweepSpec::Kind kind, double level, std::vector<bench::SweepPoint>& points);
// Measures at each level of --sweep, prints the table with the knee; returns the JSON's "sweep".
// A signal ends it after the levels measured whole (`interrupted_by`: the signal, else 0).
boost::json::object run_sweep(const Plan& plan, int& interrupted_by);
// --find-max-load: prints the rates measured; returns the JSON's "max_load". A signal ends the
// search with what it has found (`interrupted_by`, as for run_sweep).
boost::json::object find_max_load(const Plan& plan, int& interrupted_by);
// Writes the result as --json asks, and as --html, --markdown and --csv render it.
void emit_result(const Plan& plan, const bench::BenchSummary* summary, const boost::json::object& extra);
// One run, or --runs K of them: prints the results and writes --json and --records. Throws
// CLI::RuntimeError(1) when every request failed.
void run_measurements(const Plan& plan);

}  // namespace infergate::cli
