#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value_from.hpp>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bench/distribution.hpp"
#include "bench/extra_body.hpp"
#include "bench/input_fit.hpp"
#include "bench/interrupt.hpp"
#include "bench/model_mix.hpp"
#include "bench/percentile_list.hpp"
#include "bench/summary_json.hpp"
#include "cli/bench_plan.hpp"
#include "cli/checked_by.hpp"
#include "cli/commands.hpp"
#include "cli/embedded_sim.hpp"
#include "cli/number_checks.hpp"
#include "core/output_file.hpp"
#include "core/text_tokens.hpp"
#include "openai/api_base.hpp"
#include "sim/profile.hpp"
#include "sim/roofline.hpp"

namespace infergate::cli {

namespace {

// The --sim profile that serves `model`, or "" when none does.
std::string profile_serving(const std::vector<std::string>& profiles, const std::string& model) {
  for (const std::string& text : profiles) {
    if (sim::parse_profile(text).model->id == model) {
      return text;
    }
  }
  return "";
}

// The built-in simulator answers only the models of its --sim profiles: any other would fail
// every request with 404, so it is refused before the run, saying how to simulate it.
void check_simulated(const BenchArgs& args, const EmbeddedSim& sim, const std::vector<bench::ModelShare>& asked) {
  const std::vector<std::string> served = sim.model_names();
  for (const bench::ModelShare& share : asked) {
    const std::string& model = share.name;
    if (std::find(served.begin(), served.end(), model) != served.end()) {
      continue;
    }
    const sim::Catalog& catalog = sim::Catalog::builtin();
    std::string how;
    if (catalog.find_model(model) != nullptr) {
      const sim::Profile first = sim::parse_profile(args.sim_profiles.front());
      how = fmt::format("add --sim {}:bf16@{} (or another precision and hardware) to simulate it too", model,
                        first.hardware->id);
    } else {
      std::vector<std::string> ids;
      for (const sim::ModelSpec& spec : catalog.models()) {
        ids.push_back(spec.id);
      }
      how = fmt::format("the simulator's catalog has no such model (it has {})", fmt::join(ids, ", "));
    }
    throw bench::BenchError(
        fmt::format("--model {}: the built-in simulator serves {} (--sim {}); {}, or measure a server with --base-url",
                    model, fmt::join(served, ", "), fmt::join(args.sim_profiles, " --sim "), how));
  }
}

// The ceiling of the named model on the named hardware (or of the embedded simulator's profile,
// scaled by its speedup), for the mean request and answer of the workload.
std::optional<bench::RooflineContext> roofline_context(const BenchArgs& args, const std::string& sim_profile,
                                                       const bench::Workload& sent) {
  const bench::WorkloadOptions& workload = sent.options();
  if (args.model_profile.empty() != args.hardware.empty()) {
    throw bench::BenchError(
        "--model-profile and --hardware go together (e.g. --model-profile llama-3.1-8b:fp8 "
        "--hardware h100)");
  }
  if (args.model_profile.empty() && sim_profile.empty()) {
    return std::nullopt;
  }
  const std::string text = args.model_profile.empty() ? sim_profile : args.model_profile + "@" + args.hardware;
  const double speedup = args.model_profile.empty() ? args.sim_speedup : 1.0;
  sim::RooflineQuery query;
  double prompt = workload.input.mean();
  double answer = workload.output.mean();
  if (!sent.trace().empty()) {  // a replayed trace's own lengths
    double prompts = 0;
    double answers = 0;
    for (const bench::TraceRequest& t : sent.trace()) {
      prompts += t.text ? static_cast<double>(count_words(*t.text)) : t.input_tokens;
      answers += t.output_tokens.value_or(static_cast<int>(workload.output.mean()));
    }
    prompt = prompts / static_cast<double>(sent.trace().size());
    answer = answers / static_cast<double>(sent.trace().size());
  }
  query.prompt_tokens = std::max(1, static_cast<int>(prompt));
  query.context = query.prompt_tokens + std::max(1, static_cast<int>(answer));
  const sim::RooflineResult r = sim::roofline(sim::parse_profile(text), query);
  bench::RooflineContext c;
  c.profile = speedup == 1.0 ? text : fmt::format("{} at {:g}x speed", text, speedup);
  c.ideal_decode_tps = r.ideal_decode_tps * speedup;
  c.decode_tps = r.decode_tps * speedup;
  c.batch = r.batch;
  c.batch_tps = r.batch_tps * speedup;
  // A --batch request's texts are separate sequences: their prefills add.
  c.prefill_ms = r.prefill_seconds * 1000 / speedup * workload.batch;
  return c;
}

// The names of the --header fields, for the JSON's "config": their values may be keys.
boost::json::array header_names(const BenchArgs& args) {
  boost::json::array names;
  for (const std::string& header : args.headers) {
    names.emplace_back(bench::parse_header_option(header).name);
  }
  return names;
}

// An option that would change nothing in this run is refused, naming what it needs: the user
// who gave it expected an effect (a cap on requests in flight, a pause between turns) and would
// otherwise read figures measured without it.
void refuse_options_without_effect(const BenchArgs& args, const CLI::App& cmd) {
  const auto given = [&cmd](const char* name) { return cmd.count(name) > 0; };
  const bool open_loop = args.rate > 0 || args.find_max_load || args.sweep.starts_with("rate=") || !args.replay.empty();
  const auto refuse = [](const std::string& message) { throw bench::BenchError(message); };
  if (given("--concurrency") && open_loop) {
    refuse(
        "--concurrency sets a closed loop's requests in flight; an open loop (--rate, --find-max-load, "
        "--sweep rate=...) caps them with --max-concurrency");
  }
  for (const char* option : {"--max-concurrency", "--arrival"}) {
    if (given(option) && !open_loop) {
      refuse(fmt::format("{} applies to an open loop: give --rate, --find-max-load or --sweep rate=...", option));
    }
  }
  if (given("--prefix-tokens") && args.prefix_groups <= 0) {
    refuse("--prefix-tokens is the length of each shared prefix: give --prefix-groups N too");
  }
  if (given("--think-time") && args.turns < 2) {
    refuse("--think-time is the pause between a conversation's turns: give --turns 2 or more");
  }
  if (args.endpoint == "embeddings") {
    for (const char* option : {"--output-tokens", "--no-stream", "--no-ignore-eos", "--turns", "--trace"}) {
      if (given(option)) {
        refuse(fmt::format("{} applies to generating endpoints; embeddings generate nothing and come whole", option));
      }
    }
  }
  if (given("--fit-input-tokens") && given("--prompts")) {
    refuse(
        "--fit-input-tokens sizes the synthetic prompts in the server's tokens; a --prompts file's text goes as "
        "written (the server's count of it is each record's usage)");
  }
  if (given("--batch") && args.endpoint != "embeddings") {
    refuse("--batch sends several texts to embed in one request: give --endpoint embeddings");
  }
  if (!args.replay.empty()) {
    for (const char* option :
         {"--rate", "--concurrency", "--duration", "--arrival", "--ramp-up", "--prompts", "--prefix-groups", "--turns",
          "--batch", "--input-tokens", "--target", "--fit-input-tokens"}) {
      if (given(option)) {
        refuse(fmt::format("{} does not go with --replay: the trace gives each request's time and prompt", option));
      }
    }
    if (!args.sweep.empty() && !args.sweep.starts_with("speed=")) {
      refuse("a replayed trace is swept by its speed: --sweep speed=1,2,4,...");
    }
    if (!args.sweep.empty() && given("--replay-speed")) {
      refuse("--replay-speed sets one speed; --sweep speed=... sets each level's");
    }
    if (args.workers > 1) {
      refuse("--replay's senders share one start: deal the trace over --threads, not --workers");
    }
  } else if (given("--replay-speed") || args.sweep.starts_with("speed=")) {
    refuse("--replay-speed and --sweep speed=... apply to --replay (a trace to send at its own times)");
  }
  if (given("--rounds") && args.targets.empty()) {
    refuse("--rounds splits a side-by-side run into interleaved rounds: give --target");
  }
  for (const char* option : {"--knee-gain", "--knee-latency-rise"}) {
    if (given(option) && args.sweep.empty()) {
      refuse(fmt::format("{} applies to --sweep", option));
    }
  }
  if (given("--sweep-max") && args.sweep != "auto") {
    refuse("--sweep-max applies to --sweep auto");
  }
  if (args.runs > 1 && (!args.sweep.empty() || args.find_max_load)) {
    refuse(
        fmt::format("--runs repeats one load; {} measures each of its levels once (run the command again to repeat it)",
                    args.find_max_load ? "--find-max-load" : "--sweep"));
  }
  for (const char* option : {"--max-load-precision", "--max-load-ceiling"}) {
    if (given(option) && !args.find_max_load) {
      refuse(fmt::format("{} applies to --find-max-load", option));
    }
  }
}

void run_bench(const BenchArgs& args) {
  if (args.endpoint != "chat" && args.endpoint != "completions" && args.endpoint != "responses" &&
      args.endpoint != "embeddings") {
    throw bench::BenchError("--endpoint must be chat, completions, responses or embeddings");
  }
  prepare_outputs({{"--json", args.json},
                   {"--records", args.records},
                   {"--html", args.html},
                   {"--markdown", args.markdown},
                   {"--csv", args.csv}});
  bench::stop_on_signals(args.worker_count == 0);
  bench::WorkloadOptions wopts;
  wopts.endpoint = args.endpoint == "chat"          ? openai::Endpoint::chat
                   : args.endpoint == "completions" ? openai::Endpoint::completions
                   : args.endpoint == "responses"   ? openai::Endpoint::responses
                                                    : openai::Endpoint::embeddings;
  wopts.input = bench::LengthDistribution::parse(args.input_tokens);
  wopts.output = bench::LengthDistribution::parse(args.output_tokens);
  if (!args.prompts.empty()) {
    wopts.prompts_file = args.prompts;
  }
  const bool generates = wopts.endpoint != openai::Endpoint::embeddings;
  wopts.stream = generates && !args.no_stream;
  wopts.ignore_eos = generates && !args.no_ignore_eos;
  wopts.seed = args.seed;
  wopts.prefix_groups = args.prefix_groups;
  wopts.prefix_tokens = args.prefix_tokens;
  wopts.turns = args.turns;
  wopts.batch = args.batch;
  if (!args.replay.empty()) {
    wopts.trace_file = args.replay;
  }
  if (!args.extra_body.empty()) {
    wopts.extra_body = bench::parse_extra_body(args.extra_body);
  }

  bench::LoadOptions load;
  load.concurrency = args.concurrency;
  if (args.rate > 0) {
    load.rate = args.rate;
    load.arrival = bench::ArrivalProcess::parse(args.arrival, args.rate);
    if (args.max_concurrency > 0) {
      load.max_concurrency = args.max_concurrency;
    }
  }
  if (!args.replay.empty()) {
    load.replay_speed = args.replay_speed;
  }
  load.duration_s = args.duration;
  load.requests = args.requests > 0 ? args.requests : (args.duration > 0 ? 0 : 100);
  load.warmup = args.warmup;
  load.ramp_up_s = args.ramp_up;
  load.think_time_s = args.think_time;
  load.seed = args.seed;
  load.busy_poll = !args.no_busy_poll;
  load.threads = args.threads > 0 ? args.threads : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));

  if (!args.model.empty()) {
    try {
      wopts.mix = bench::parse_model_mix(args.model);
    } catch (const std::invalid_argument& e) {
      throw bench::BenchError(e.what());
    }
  }
  const bool mixed = wopts.mix.size() > 1;
  if (mixed && (!args.targets.empty() || !args.model_profile.empty())) {
    throw bench::BenchError(fmt::format(
        "--model {} spreads the load over several models of one endpoint; leave out {}", args.model,
        args.targets.empty() ? "--model-profile (the roofline of one model)" : "--target (each names its own model)"));
  }

  // Checked before any mode starts: a mistyped price or SLO must not cost a whole run.
  const bench::Pricing pricing = pricing_of(args);
  const std::vector<bench::Slo> slos = slos_of(args);
  if (!args.targets.empty()) {
    if (!args.base_url.empty() || args.find_max_load || args.runs > 1 || args.workers > 1 ||
        !args.server_metrics.empty()) {
      throw bench::BenchError(
          "--target measures every target side by side (one load or a --sweep); leave out "
          "--base-url, --find-max-load, --runs, --workers and --server-metrics (one server's)");
    }
    run_side_by_side(args, wopts, load, workload_config(args, wopts, load), slos);
    return;
  }

  if (args.worker_count > 0) {
    end_with_parent(args.worker_parent);
    load = bench::load_share(load, args.worker_count, args.worker_index);
    load.threads = args.threads > 0 ? args.threads : 1;
  }
  std::optional<EmbeddedSim> sim;
  std::string base_url = args.base_url;
  if (base_url.empty()) {
    sim.emplace(sim_options_for(args.sim_profiles, args.sim_speedup, args.sim_max_num_seqs));
    base_url = sim->base_url();
    check_simulated(args, *sim, wopts.mix);
  }
  if (args.workers > 1) {
    if (!args.sweep.empty() || args.find_max_load || args.runs > 1) {
      throw bench::BenchError("--workers splits one run; leave out --sweep, --find-max-load and --runs");
    }
    run_workers(args, base_url, slos);
    return;
  }
  const bench::Target target = make_target(args, base_url, "");
  const std::string model = choose_model(target, wopts.mix.empty() ? "" : wopts.mix.front().name);
  wopts.model = model;
  if (args.fit_input_tokens) {
    wopts.input_fits = bench::probe_input_fits(target, wopts);
  }
  const bench::Workload workload(wopts);
  if (load.replay_speed) {
    const std::uint64_t traced = workload.trace().size();
    if (args.requests > traced) {
      throw bench::BenchError(fmt::format("--requests {}: {} holds {} requests; replay them all or fewer",
                                          args.requests, args.replay, traced));
    }
    load.requests = args.requests > 0 ? args.requests : traced;
  }

  boost::json::object config = workload_config(args, wopts, load);
  const std::string models = mixed ? bench::describe_mix(wopts.mix) : model;
  config["label"] = args.label.empty() ? models : args.label;
  config["base_url"] = target.base.to_string();
  config["model"] = models;
  config["input_fit"] =
      args.fit_input_tokens ? boost::json::value(bench::input_fit_json(wopts)) : boost::json::value(nullptr);
  if (mixed) {
    boost::json::array mix;
    for (const bench::ModelShare& share : wopts.mix) {
      mix.push_back(boost::json::object{{"model", share.name}, {"weight", share.weight}});
    }
    config["model_mix"] = std::move(mix);
  }
  const std::string simulated = fmt::format("{}", fmt::join(args.sim_profiles, " + "));
  config["simulator"] = sim ? boost::json::value(simulated) : boost::json::value(nullptr);
  const std::optional<bench::RooflineContext> roofline =
      mixed ? std::nullopt : roofline_context(args, sim ? profile_serving(args.sim_profiles, model) : "", workload);
  if (roofline) {
    config["roofline"] = bench::roofline_json(*roofline);
  }
  const Plan plan{args,
                  target,
                  wopts,
                  workload,
                  load,
                  slos,
                  pricing,
                  config,
                  fmt::format("infergate bench: {} at {} ({})", models, target.base.to_string(),
                              sim ? "simulator " + simulated : "external"),
                  roofline};
  if (args.find_max_load) {
    if (slos.empty() || !args.sweep.empty()) {
      throw bench::BenchError("--find-max-load needs --slo (and no --sweep)");
    }
    fmt::print("{}, {}\n", plan.heading, bench::describe_lengths(wopts));
    int interrupted_by = 0;
    const boost::json::object max_load = find_max_load(plan, interrupted_by);
    emit_result(plan, nullptr, {{"max_load", max_load}});
    if (interrupted_by != 0) {
      say_interrupted(interrupted_by, "the rates measured whole before it");
      end_interrupted(interrupted_by);
    }
    return;
  }
  if (!args.sweep.empty()) {
    fmt::print("{}, {}\n", plan.heading, bench::describe_lengths(wopts));
    int interrupted_by = 0;
    const boost::json::object sweep = run_sweep(plan, interrupted_by);
    emit_result(plan, nullptr, {{"sweep", sweep}});
    if (interrupted_by != 0) {
      say_interrupted(interrupted_by, "the levels measured whole before it");
      end_interrupted(interrupted_by);
    }
    return;
  }

  run_measurements(plan);
}

}  // namespace

bench::Target make_target(const BenchArgs& args, const std::string& url, const std::string& api_key_env) {
  bench::Target target;
  target.base = openai::parse_api_base(url);
  target.api_key = args.api_key;
  const char* env = api_key_env.empty() ? "OPENAI_API_KEY" : api_key_env.c_str();
  if (!api_key_env.empty() || target.api_key.empty()) {
    const char* key = std::getenv(env);
    if (key == nullptr && !api_key_env.empty()) {
      throw bench::BenchError(fmt::format("${} is not set (named by --target ...,api_key_env={})", env, env));
    }
    target.api_key = key != nullptr ? key : "";
  }
  for (const std::string& header : args.headers) {
    target.headers.push_back(bench::parse_header_option(header));
  }
  target.trace = args.trace;
  target.tls.verify_peer = !args.insecure;
  target.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(args.timeout_s * 1000));
  return target;
}

std::string choose_model(const bench::Target& target, const std::string& requested) {
  const std::vector<std::string> models = bench::list_models(target);
  if (!requested.empty()) {
    return requested;
  }
  if (models.empty()) {
    throw bench::BenchError(fmt::format("{}/models lists no models; pass --model", target.base.to_string()));
  }
  return models.front();
}

bench::Pricing pricing_of(const BenchArgs& args, const bench::TargetSpec* target) {
  if (target != nullptr && (target->price_in || target->price_out || target->hourly_cost)) {
    return bench::Pricing{target->price_in, target->price_out, target->hourly_cost};
  }
  bench::Pricing pricing = args.price.empty() ? bench::Pricing{} : bench::parse_price(args.price);
  if (args.hourly_cost > 0) {
    pricing.hourly = args.hourly_cost;
  }
  return pricing;
}

std::vector<bench::Slo> slos_of(const BenchArgs& args) {
  std::vector<bench::Slo> slos = args.slo.empty() ? std::vector<bench::Slo>{} : bench::parse_slos(args.slo);
  if (args.endpoint == "embeddings") {
    for (const bench::Slo& slo : slos) {
      if (slo.metric == bench::Slo::Metric::tpot || slo.metric == bench::Slo::Metric::itl) {
        throw bench::BenchError(fmt::format(
            "--slo {}: embeddings generate nothing, so there is no {}; set ttft or e2e (one and the same for an "
            "answer that comes whole)",
            slo.to_string(), slo.metric == bench::Slo::Metric::tpot ? "TPOT" : "ITL"));
      }
    }
  }
  return slos;
}

std::vector<double> extra_percentiles(const BenchArgs& args) {
  return args.percentiles.empty() ? std::vector<double>{} : bench::parse_percentiles(args.percentiles);
}

boost::json::object workload_config(const BenchArgs& args, const bench::WorkloadOptions& wopts,
                                    const bench::LoadOptions& load) {
  return boost::json::object{
      {"started_at_ms",
       std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
           .count()},
      {"endpoint", args.endpoint},
      {"load", load.replay_speed ? "replay"
               : load.rate       ? "open"
                                 : "closed"},
      {"replay", args.replay.empty() ? boost::json::value(nullptr) : boost::json::value(args.replay)},
      {"replay_speed", load.replay_speed ? boost::json::value(*load.replay_speed) : boost::json::value(nullptr)},
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
      {"threads", load.threads},
      {"input_tokens", wopts.input.to_string()},
      {"output_tokens", wopts.endpoint == openai::Endpoint::embeddings ? boost::json::value(nullptr)
                                                                       : boost::json::value(wopts.output.to_string())},
      {"prefix_groups", wopts.prefix_groups},
      {"prefix_tokens", wopts.prefix_tokens},
      {"turns", wopts.turns},
      {"batch", wopts.batch},
      {"think_time_s", load.think_time_s},
      {"prompts", args.prompts.empty() ? boost::json::value(nullptr) : boost::json::value(args.prompts)},
      {"stream", wopts.stream},
      {"ignore_eos", wopts.ignore_eos},
      {"extra_body", wopts.extra_body.empty() ? boost::json::value(nullptr) : boost::json::value(wopts.extra_body)},
      {"headers", header_names(args)},
      {"percentiles", boost::json::value_from(extra_percentiles(args))},
      {"sweep", args.sweep.empty() ? boost::json::value(nullptr) : boost::json::value(args.sweep)},
  };
}

void add_bench_command(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand("bench", "Benchmark an OpenAI-compatible endpoint (TTFT, TPOT, ITL, throughput)");
  cmd->add_option("--base-url", a->base_url, "Endpoint to measure; without it, the built-in simulator");
  cmd->add_option("--target", a->targets,
                  "NAME=URL[,model=M][,api_key_env=VAR][,price_in=USD][,price_out=USD][,hourly_cost=USD], repeated: "
                  "measure several endpoints with the same workload, interleaved in rounds (A B, B A, ...) so drift "
                  "hits them alike; a target's own prices replace --price and --hourly-cost for it");
  cmd->add_option("--rounds", a->rounds, "--target: rounds the requests are split into")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--model", a->model,
                  "Model to request (default: the first the server lists), or NAME=WEIGHT,NAME=WEIGHT,... to spread "
                  "conversations over several by weight, with figures for each");
  cmd->add_option("--api-key", a->api_key, "Bearer key (default: $OPENAI_API_KEY)");
  cmd->add_option("--endpoint", a->endpoint,
                  "chat (/v1/chat/completions), completions (/v1/completions), responses (/v1/responses) or "
                  "embeddings (/v1/embeddings: TTFT is then the whole answer's time, throughput input tokens)")
      ->check(CLI::IsMember({"chat", "completions", "responses", "embeddings"}))
      ->capture_default_str();
  cmd->add_option("--sim", a->sim_profiles,
                  "Simulator profile when no --base-url, repeatable: each serves its model (for --model A=3,B=1)")
      ->capture_default_str();
  cmd->add_option("--sim-speedup", a->sim_speedup, "Simulator speedup")->check(positive())->capture_default_str();
  cmd->add_option("--sim-max-num-seqs", a->sim_max_num_seqs, "Simulator batch limit")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--concurrency", a->concurrency, "Closed loop: requests kept in flight")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--rate", a->rate, "Open loop: requests per second")->check(positive());
  cmd->add_option("--arrival", a->arrival, "poisson, constant or gamma:K")->capture_default_str();
  cmd->add_option("--max-concurrency", a->max_concurrency, "Open loop: cap on requests in flight")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--requests", a->requests, "Requests to measure (default 100 unless --duration)")->check(positive());
  cmd->add_option("--duration", a->duration, "Seconds to keep issuing requests")->check(positive());
  cmd->add_option("--warmup", a->warmup, "Requests run and discarded first")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--ramp-up", a->ramp_up,
                  "Seconds to reach the load: streams start evenly over it, or the rate rises linearly from 0")
      ->check(non_negative());
  cmd->add_option("--seed", a->seed, "Seed for prompts, lengths and arrivals")->capture_default_str();
  const CLI::Validator length_check = checked_by(bench::LengthDistribution::parse);
  cmd->add_option("--input-tokens", a->input_tokens, "N, normal:MEAN,SD or uniform:MIN,MAX")
      ->check(length_check)
      ->capture_default_str();
  cmd->add_option("--output-tokens", a->output_tokens, "N, normal:MEAN,SD or uniform:MIN,MAX")
      ->check(length_check)
      ->capture_default_str();
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
  cmd->add_option("--batch", a->batch,
                  "Embeddings: texts per request, sent as an input array (as embedding clients batch them); each "
                  "answer must hold as many vectors")
      ->check(CLI::Range(1, 100'000))
      ->capture_default_str();
  cmd->add_option("--replay", a->replay,
                  "A request trace to replay, each request sent at its own time: JSONL of {\"timestamp\": ms, "
                  "\"input_length\", \"output_length\", \"hash_ids\"} (Mooncake's format, as AIPerf reads it) or "
                  "\"text_input\" for the prompt itself")
      ->check(CLI::ExistingFile);
  cmd->add_option("--replay-speed", a->replay_speed,
                  "--replay: how much faster than traced to send (2: at half the gaps); with --find-max-load, the "
                  "speed the search starts from")
      ->check(positive())
      ->capture_default_str();
  cmd->add_option("--think-time", a->think_time, "Multi-turn: seconds between an answer and the next turn")
      ->check(non_negative());
  cmd->add_flag("--no-stream", a->no_stream, "Ask for whole responses (TTFT then equals E2E)");
  cmd->add_flag("--no-ignore-eos", a->no_ignore_eos,
                "Do not send ignore_eos/min_tokens (for servers that reject them)");
  cmd->add_flag("--fit-input-tokens", a->fit_input_tokens,
                "Size prompts in the server's own tokens: two probes first measure how it counts words and what "
                "its chat template adds");
  cmd->add_option("--extra-body", a->extra_body,
                  "JSON object of members added to every request, e.g. '{\"temperature\":0,\"top_p\":0.9}' "
                  "(not those the benchmark sets: model, the prompt, lengths, stream)")
      ->check(checked_by(bench::parse_extra_body));
  cmd->add_option("--header", a->headers,
                  "\"Name: value\", repeated: a header sent with every request (e.g. a gateway's own key or route "
                  "header); User-Agent replaces the benchmark's")
      ->check(checked_by(bench::parse_header_option));
  cmd->add_option("--percentiles", a->percentiles,
                  "Percentiles shown and written beside p50, p90, p95 and p99, e.g. 99.9,99.99 (or 1,5,25,75)")
      ->check(checked_by(bench::parse_percentiles));
  cmd->add_option("--json", a->json,
                  "Write the summary as JSON (schema infergate.bench/1); - for standard output, the tables then going "
                  "to standard error");
  cmd->add_option("--markdown", a->markdown, "Write the result as Markdown (as infergate report renders it)");
  cmd->add_option("--csv", a->csv, "Write one CSV row per measured load");
  cmd->add_option("--html", a->html, "Write a self-contained HTML report with charts (as infergate report draws it)");
  cmd->add_option("--label", a->label, "Name of this run in reports and comparisons (default: the model)");
  cmd->add_option("--records", a->records, "Write one JSON line per request");
  cmd->add_flag("--trace", a->trace, "Ask the server for infergate_trace ground truth (the simulator sends it)");
  cmd->add_option("--timeout", a->timeout_s, "Seconds to wait for a connection or for the next bytes")
      ->check(positive())
      ->capture_default_str();
  cmd->add_flag("--insecure", a->insecure, "Do not verify the server's TLS certificate");
  cmd->add_option("--threads", a->threads,
                  "Event loops sending the load, one per thread (0: one per core); use more when the client is the "
                  "bottleneck")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  cmd->add_option("--workers", a->workers,
                  "Processes sending the load, each its share, merged exactly at the end (to load past one process)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--worker-index", a->worker_index)->group("");
  cmd->add_option("--worker-count", a->worker_count)->group("");
  cmd->add_option("--worker-parent", a->worker_parent)->group("");
  cmd->add_flag("--no-busy-poll", a->no_busy_poll,
                "Sleep between events instead of spinning (saves a core, adds wake-up latency to timings)");
  cmd->add_option("--sweep", a->sweep,
                  "concurrency=1,2,4,..., rate=R1,R2,..., speed=S1,S2,... (with --replay) or auto (double from one "
                  "stream until the knee or a broken SLO, then fill in)");
  cmd->add_option("--slo", a->slo, "e.g. ttft_p99=500ms,tpot_p99=50ms,e2e_p99=10s: goodput and whether they hold");
  cmd->add_option("--knee-gain", a->knee_gain, "Knee: throughput gain below which a step up counts as flat")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--knee-latency-rise", a->knee_latency_rise,
                  "Knee: p99 TTFT or TPOT rise above which a flat step counts as a knee")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--sweep-max", a->sweep_max, "--sweep auto: the highest concurrency tried")
      ->check(positive())
      ->capture_default_str();
  cmd->add_flag("--find-max-load", a->find_max_load,
                "The highest --rate (open loop), or with --replay the highest --replay-speed, that meets every --slo: "
                "doubling from it (or 1), then bisection");
  cmd->add_option("--max-load-precision", a->max_load_precision,
                  "--find-max-load stops when the failing rate is within this fraction of the passing one")
      ->check(CLI::Range(0.01, 10.0))
      ->capture_default_str();
  cmd->add_option("--max-load-ceiling", a->max_load_ceiling, "--find-max-load: the highest rate tried")
      ->check(positive())
      ->capture_default_str();
  cmd->add_option("--runs", a->runs,
                  "Repeat the run K times (fresh prompts each): mean, CV and 95% interval of each headline figure")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--server-metrics", a->server_metrics,
                  "The server's Prometheus endpoint (e.g. http://127.0.0.1:8000/metrics), read every second: queue, "
                  "batch and KV-cache use on the run's time axis (vLLM and SGLang names)");
  cmd->add_option("--model-profile", a->model_profile,
                  "MODEL[:DTYPE] the endpoint serves (e.g. llama-3.1-8b:fp8): with --hardware, the report shows the "
                  "roofline ceiling and the measured share of it");
  cmd->add_option("--hardware", a->hardware, "HW[xN] the endpoint runs on (e.g. h100x2), for --model-profile");
  cmd->add_option("--price", a->price,
                  "Per-token prices, US dollars per million tokens: in=0.15,out=0.60 (cost per million output "
                  "tokens; input tokens for embeddings)");
  cmd->add_option("--hourly-cost", a->hourly_cost,
                  "US dollars per hour of the endpoint's hardware (cost per million output tokens at the steady-state "
                  "rate; input tokens for embeddings)")
      ->check(positive());
  cmd->callback([a, cmd] {
    refuse_options_without_effect(*a, *cmd);
    run_bench(*a);
  });
}

}  // namespace infergate::cli
