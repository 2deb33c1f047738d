#include <fmt/format.h>
#include <boost/json/object.hpp>

#include <cstdlib>
#include <memory>
#include <optional>

#include "bench/summary_json.hpp"
#include "cli/bench_plan.hpp"
#include "cli/commands.hpp"
#include "cli/embedded_sim.hpp"

namespace infergate::cli {

namespace {

void run_bench(const BenchArgs& args) {
  std::optional<EmbeddedSim> sim;
  std::string base_url = args.base_url;
  if (base_url.empty()) {
    sim.emplace(sim_options_for(args.sim_profile, args.sim_speedup, args.sim_max_num_seqs));
    base_url = sim->base_url();
  }
  bench::Target target;
  target.base = bench::target_base(base_url);
  target.api_key = args.api_key;
  if (target.api_key.empty()) {
    if (const char* key = std::getenv("OPENAI_API_KEY")) {
      target.api_key = key;
    }
  }
  target.trace = args.trace;
  target.tls.verify_peer = !args.insecure;
  target.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(args.timeout_s * 1000));

  const std::vector<std::string> models = bench::list_models(target);
  std::string model = args.model;
  if (model.empty()) {
    if (models.empty()) {
      throw bench::BenchError(fmt::format("{}/models lists no models; pass --model", target.base.to_string()));
    }
    model = models.front();
  }

  bench::WorkloadOptions wopts;
  if (args.endpoint != "chat" && args.endpoint != "completions") {
    throw bench::BenchError("--endpoint must be chat or completions");
  }
  wopts.endpoint = args.endpoint == "chat" ? openai::Endpoint::chat : openai::Endpoint::completions;
  wopts.model = model;
  wopts.input = bench::LengthDistribution::parse(args.input_tokens);
  wopts.output = bench::LengthDistribution::parse(args.output_tokens);
  if (!args.prompts.empty()) {
    wopts.prompts_file = args.prompts;
  }
  wopts.stream = !args.no_stream;
  wopts.ignore_eos = !args.no_ignore_eos;
  wopts.seed = args.seed;
  wopts.prefix_groups = args.prefix_groups;
  wopts.prefix_tokens = args.prefix_tokens;
  wopts.turns = args.turns;
  const bench::Workload workload(wopts);

  bench::LoadOptions load;
  load.concurrency = args.concurrency;
  if (args.rate > 0) {
    load.rate = args.rate;
    load.arrival = bench::ArrivalProcess::parse(args.arrival, args.rate);
    if (args.max_concurrency > 0) {
      load.max_concurrency = args.max_concurrency;
    }
  }
  load.duration_s = args.duration;
  load.requests = args.requests > 0 ? args.requests : (args.duration > 0 ? 0 : 100);
  load.warmup = args.warmup;
  load.ramp_up_s = args.ramp_up;
  load.think_time_s = args.think_time;
  load.seed = args.seed;
  load.busy_poll = !args.no_busy_poll;

  bench::Pricing pricing = args.price.empty() ? bench::Pricing{} : bench::parse_price(args.price);
  if (args.hourly_cost > 0) {
    pricing.hourly = args.hourly_cost;
  }
  const std::vector<bench::Slo> slos = args.slo.empty() ? std::vector<bench::Slo>{} : bench::parse_slos(args.slo);
  boost::json::object config{
      {"label", args.label.empty() ? model : args.label},
      {"started_at_ms",
       std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
           .count()},
      {"base_url", target.base.to_string()},
      {"model", model},
      {"endpoint", args.endpoint},
      {"simulator", sim ? boost::json::value(args.sim_profile) : boost::json::value(nullptr)},
      {"load", load.rate ? "open" : "closed"},
      {"concurrency", load.concurrency},
      {"rate", load.rate ? boost::json::value(*load.rate) : boost::json::value(nullptr)},
      {"arrival", load.arrival ? boost::json::value(load.arrival->to_string()) : boost::json::value(nullptr)},
      {"max_concurrency",
       load.max_concurrency ? boost::json::value(*load.max_concurrency) : boost::json::value(nullptr)},
      {"requests", load.requests},
      {"duration_s", load.duration_s},
      {"warmup", load.warmup},
      {"ramp_up_s", load.ramp_up_s},
      {"seed", load.seed},
      {"input_tokens", wopts.input.to_string()},
      {"output_tokens", wopts.output.to_string()},
      {"prefix_groups", wopts.prefix_groups},
      {"prefix_tokens", wopts.prefix_tokens},
      {"turns", wopts.turns},
      {"think_time_s", load.think_time_s},
      {"prompts", args.prompts.empty() ? boost::json::value(nullptr) : boost::json::value(args.prompts)},
      {"stream", wopts.stream},
      {"ignore_eos", wopts.ignore_eos},
      {"sweep", args.sweep.empty() ? boost::json::value(nullptr) : boost::json::value(args.sweep)},
  };
  const Plan plan{args,
                  target,
                  wopts,
                  workload,
                  load,
                  slos,
                  pricing,
                  config,
                  fmt::format("infergate bench: {} at {} ({})", model, target.base.to_string(),
                              sim ? "simulator " + args.sim_profile : "external")};
  if (args.find_max_load) {
    if (slos.empty() || !args.sweep.empty()) {
      throw bench::BenchError("--find-max-load needs --slo (and no --sweep)");
    }
    fmt::print("{}, input {} / output {} tokens\n", plan.heading, wopts.input.to_string(), wopts.output.to_string());
    const boost::json::object max_load = find_max_load(plan);
    emit_result(plan, nullptr, {{"max_load", max_load}});
    return;
  }
  if (!args.sweep.empty()) {
    fmt::print("{}, input {} / output {} tokens\n", plan.heading, wopts.input.to_string(), wopts.output.to_string());
    const boost::json::object sweep = run_sweep(plan);
    emit_result(plan, nullptr, {{"sweep", sweep}});
    return;
  }

  run_measurements(plan);
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand("bench", "Benchmark an OpenAI-compatible endpoint (TTFT, TPOT, ITL, throughput)");
  cmd->add_option("--base-url", a->base_url, "Endpoint to measure; without it, the built-in simulator");
  cmd->add_option("--model", a->model, "Model to request (default: the first the server lists)");
  cmd->add_option("--api-key", a->api_key, "Bearer key (default: $OPENAI_API_KEY)");
  cmd->add_option("--endpoint", a->endpoint, "chat or completions")
      ->check(CLI::IsMember({"chat", "completions"}))
      ->capture_default_str();
  cmd->add_option("--sim", a->sim_profile, "Simulator profile when no --base-url")->capture_default_str();
  cmd->add_option("--sim-speedup", a->sim_speedup, "Simulator speedup")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--sim-max-num-seqs", a->sim_max_num_seqs, "Simulator batch limit")->capture_default_str();
  cmd->add_option("--concurrency", a->concurrency, "Closed loop: requests kept in flight")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--rate", a->rate, "Open loop: requests per second")->check(CLI::PositiveNumber);
  cmd->add_option("--arrival", a->arrival, "poisson, constant or gamma:K")->capture_default_str();
  cmd->add_option("--max-concurrency", a->max_concurrency, "Open loop: cap on requests in flight");
  cmd->add_option("--requests", a->requests, "Requests to measure (default 100 unless --duration)");
  cmd->add_option("--duration", a->duration, "Seconds to keep issuing requests")->check(CLI::PositiveNumber);
  cmd->add_option("--warmup", a->warmup, "Requests run and discarded first")->capture_default_str();
  cmd->add_option("--ramp-up", a->ramp_up,
                  "Seconds to reach the load: streams start evenly over it, or the rate rises linearly from 0")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", a->seed, "Seed for prompts, lengths and arrivals")->capture_default_str();
  cmd->add_option("--input-tokens", a->input_tokens, "N, normal:MEAN,SD or uniform:MIN,MAX")->capture_default_str();
  cmd->add_option("--output-tokens", a->output_tokens, "N, normal:MEAN,SD or uniform:MIN,MAX")->capture_default_str();
  cmd->add_option("--prompts", a->prompts,
                  "JSONL file ({\"prompt\": ...}, {\"messages\": [...]} or {\"conversations\": [...]} per line) or "
                  "a ShareGPT JSON array")
      ->check(CLI::ExistingFile);
  cmd->add_option("--prefix-groups", a->prefix_groups,
                  "Shared-prefix workload: N prefixes, request i starting with prefix i mod N (to show prefix caching)")
      ->check(CLI::Range(1, 1'000'000));
  cmd->add_option("--prefix-tokens", a->prefix_tokens, "Length of each shared prefix, ahead of --input-tokens")
      ->check(CLI::Range(1, 10'000'000));
  cmd->add_option("--turns", a->turns,
                  "Multi-turn: user turns per conversation, each sent with the history and the server's replies "
                  "(a ShareGPT file's conversations give their own, up to this)")
      ->check(CLI::Range(1, 10'000))
      ->capture_default_str();
  cmd->add_option("--think-time", a->think_time, "Multi-turn: seconds between an answer and the next turn")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--no-stream", a->no_stream, "Ask for whole responses (TTFT then equals E2E)");
  cmd->add_flag("--no-ignore-eos", a->no_ignore_eos,
                "Do not send ignore_eos/min_tokens (for servers that reject them)");
  cmd->add_option("--json", a->json, "Write the summary as JSON (schema infergate.bench/1)");
  cmd->add_option("--markdown", a->markdown, "Write the result as Markdown (as infergate report renders it)");
  cmd->add_option("--csv", a->csv, "Write one CSV row per measured load");
  cmd->add_option("--html", a->html, "Write a self-contained HTML report with charts (as infergate report draws it)");
  cmd->add_option("--label", a->label, "Name of this run in reports and comparisons (default: the model)");
  cmd->add_option("--records", a->records, "Write one JSON line per request");
  cmd->add_flag("--trace", a->trace, "Ask the server for infergate_trace ground truth (the simulator sends it)");
  cmd->add_option("--timeout", a->timeout_s, "Seconds to wait for a connection or for the next bytes")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--insecure", a->insecure, "Do not verify the server's TLS certificate");
  cmd->add_flag("--no-busy-poll", a->no_busy_poll,
                "Sleep between events instead of spinning (saves a core, adds wake-up latency to timings)");
  cmd->add_option("--sweep", a->sweep,
                  "concurrency=1,2,4,..., rate=R1,R2,... or auto (double from one stream until the knee or a "
                  "broken SLO, then fill in)");
  cmd->add_option("--slo", a->slo, "e.g. ttft_p99=500ms,tpot_p99=50ms,e2e_p99=10s: goodput and whether they hold");
  cmd->add_option("--knee-gain", a->knee_gain, "Knee: throughput gain below which a step up counts as flat")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--knee-latency-rise", a->knee_latency_rise,
                  "Knee: p99 TTFT or TPOT rise above which a flat step counts as a knee")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--sweep-max", a->sweep_max, "--sweep auto: the highest concurrency tried")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--find-max-load", a->find_max_load,
                "The highest --rate (open loop) that meets every --slo: doubling from --rate (or 1), then bisection");
  cmd->add_option("--max-load-precision", a->max_load_precision,
                  "--find-max-load stops when the failing rate is within this fraction of the passing one")
      ->check(CLI::Range(0.01, 10.0))
      ->capture_default_str();
  cmd->add_option("--max-load-ceiling", a->max_load_ceiling, "--find-max-load: the highest rate tried")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--runs", a->runs,
                  "Repeat the run K times (fresh prompts each): mean, CV and 95% interval of each headline figure")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--price", a->price,
                  "Per-token prices, US dollars per million tokens: in=0.15,out=0.60 (cost per million output tokens)");
  cmd->add_option("--hourly-cost", a->hourly_cost,
                  "US dollars per hour of the endpoint's hardware (cost per million output tokens at the steady-state "
                  "rate)")
      ->check(CLI::PositiveNumber);
  cmd->callback([a] { run_bench(*a); });
}

}  // namespace infergate::cli
