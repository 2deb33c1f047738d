#include <fmt/format.h>

#include <cstdio>

#include "bench/interrupt.hpp"
#include "bench/runner.hpp"
#include "bench/summary.hpp"
#include "bench/summary_table.hpp"
#include "cli/commands.hpp"
#include "cli/embedded_sim.hpp"
#include "cli/interrupted.hpp"
#include "cli/number_checks.hpp"
#include "openai/api_base.hpp"

namespace infergate::cli {

namespace {

struct DemoArgs {
  std::string profile = "gemma-4-31b:bf16@h200";
  double speedup = 1.0;
  std::vector<int> levels{1, 4, 16, 64};
  int input_tokens = 256;
  int output_tokens = 128;
};

void run_demo(const DemoArgs& args) {
  bench::stop_on_signals(true);
  EmbeddedSim sim(sim_options_for({args.profile}, args.speedup, 256));
  bench::Target target;
  target.base = openai::parse_api_base(sim.base_url());
  const auto models = bench::list_models(target);

  bench::WorkloadOptions wopts;
  wopts.model = models.front();
  wopts.input = bench::LengthDistribution::fixed(args.input_tokens);
  wopts.output = bench::LengthDistribution::fixed(args.output_tokens);
  const bench::Workload workload(wopts);

  fmt::print("infergate demo: simulated {} at {} (speedup {}), {} input / {} output tokens per request\n", args.profile,
             sim.base_url(), args.speedup, args.input_tokens, args.output_tokens);
  fmt::print("{:>11} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8}\n", "concurrency", "requests", "TTFT p50",
             "TTFT p99", "TPOT p50", "TPOT p99", "tok/s", "failed");
  std::fflush(stdout);
  bool all_failed = false;  // at some level
  for (int level : args.levels) {
    bench::LoadOptions load;
    load.concurrency = level;
    load.requests = static_cast<std::uint64_t>(std::max(4, 2 * level));
    const bench::RunResult result = bench::run_load(target, workload, load);
    if (result.interrupted_by != 0) {
      say_interrupted(result.interrupted_by, "the levels above, measured whole", "demo");
      end_interrupted(result.interrupted_by);
    }
    const auto summary = bench::summarize_run(result.records);
    fmt::print("{:>11} {:>9} {:>8.1f}ms {:>8.1f}ms {:>8.2f}ms {:>8.2f}ms {:>10.1f} {:>8}\n", level, summary.completed,
               summary.ttft_ms.p50, summary.ttft_ms.p99, summary.tpot_ms.p50, summary.tpot_ms.p99,
               summary.output_tokens_per_s, summary.failed);
    bench::print_failures(stdout, summary);
    std::fflush(stdout);
    all_failed = all_failed || summary.completed == 0;
  }
  if (all_failed) {
    throw CLI::RuntimeError(1);  // as bench does when every request failed
  }
}

}  // namespace

void add_demo_command(CLI::App& app) {
  auto a = std::make_shared<DemoArgs>();
  auto* cmd = app.add_subcommand("demo", "Start the simulator and benchmark it at concurrency 1, 4, 16 and 64");
  cmd->add_option("--profile", a->profile, "Simulator profile")->capture_default_str();
  cmd->add_option("--speedup", a->speedup, "Simulator speedup (times shown are then that much shorter)")
      ->check(positive())
      ->capture_default_str();
  cmd->add_option("--levels", a->levels, "Concurrency levels, comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--input-tokens", a->input_tokens, "Prompt tokens per request")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--output-tokens", a->output_tokens, "Output tokens per request")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->callback([a] { run_demo(*a); });
}

}  // namespace infergate::cli
