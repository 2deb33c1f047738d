#include <fmt/format.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <csignal>
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/number_checks.hpp"
#include "sim/sim_server.hpp"

namespace infergate::cli {

namespace {

struct SimArgs {
  std::vector<std::string> profiles{"gemma-4-31b:bf16@h200"};
  std::vector<std::string> catalogs;
  std::string host = "127.0.0.1";
  std::uint16_t port = 8000;
  double speedup = 1.0;
  int max_num_seqs = 256;
  int max_num_batched_tokens = 8192;
  bool no_prefix_caching = false;
  int tokens_per_chunk = 1;
  std::string served_model_name;
  std::string api_key;
  std::size_t max_body_bytes = std::size_t{8} << 20;
  int header_timeout_ms = 30'000;
  sim::FaultRates faults;
  std::optional<std::int64_t> rpm;
  std::optional<std::int64_t> tpm;
  int stall_first_ms = 0;
  int stall_between_ms = 0;
  double tool_call_share = 0;
};

void add_fault_options(CLI::App& cmd, SimArgs& args) {
  const char* group = "Fault injection (a request's x-infergate-fault header overrides these)";
  auto rate = [&](const char* name, double& value, const char* help) {
    cmd.add_option(name, value, help)->check(CLI::Range(0.0, 1.0))->group(group)->capture_default_str();
  };
  auto& f = args.faults;
  rate("--fault-error-rate", f.error, "Share of requests answered with --fault-error-status");
  cmd.add_option("--fault-error-status", f.error_status, "Status of injected errors")
      ->check(CLI::Range(400, 599))
      ->group(group)
      ->capture_default_str();
  rate("--fault-429-rate", f.rate_limit, "Share of requests answered 429 with Retry-After");
  cmd.add_option("--fault-retry-after", f.retry_after_s, "Retry-After seconds of injected 429s")
      ->check(CLI::Range(0, 86'400))
      ->group(group)
      ->capture_default_str();
  f.stall = 1.0;  // a stall asked for hits every request unless a share is given
  rate("--fault-stall-rate", f.stall, "Share of requests that stall, when a stall is set");
  cmd.add_option("--fault-stall-first-ms", args.stall_first_ms, "Stall before the first token")
      ->check(CLI::Range(0, 3'600'000))
      ->group(group);
  cmd.add_option("--fault-stall-between-ms", args.stall_between_ms, "Stall before each later event")
      ->check(CLI::Range(0, 3'600'000))
      ->group(group);
  rate("--fault-reset-rate", f.reset, "Share of requests whose connection is reset mid-stream");
  cmd.add_option("--fault-reset-after", f.reset_after_tokens, "Tokens sent before the reset")
      ->check(non_negative())
      ->group(group)
      ->capture_default_str();
  rate("--fault-malformed-rate", f.malformed, "Share of streams that carry one event that is not JSON");
  cmd.add_option("--fault-malformed-after", f.malformed_after_tokens, "Tokens sent before the malformed event")
      ->check(non_negative())
      ->group(group)
      ->capture_default_str();
  cmd.add_flag("--fault-no-usage", f.no_usage, "Never report usage (as some servers do not)")->group(group);
  cmd.add_flag("--fault-no-ignore-eos", f.no_ignore_eos,
               "Act as a server that knows neither ignore_eos nor min_tokens (OpenAI's API, Groq)")
      ->group(group);
  cmd.add_option("--fault-seed", f.seed, "Seed of the fault draws")->group(group)->capture_default_str();
}

void run_sim(const SimArgs& args) {
  sim::Catalog catalog = sim::Catalog::builtin();
  for (const auto& path : args.catalogs) {
    catalog.add_file(path);
  }
  sim::SimOptions options;
  for (const auto& p : args.profiles) {
    options.profiles.push_back(sim::parse_profile(p, catalog));
  }
  if (!args.served_model_name.empty()) {
    options.served_model_name = args.served_model_name;
  }
  if (!args.api_key.empty()) {
    options.api_key = args.api_key;
  }
  options.engine.speedup = args.speedup;
  options.engine.max_num_seqs = args.max_num_seqs;
  options.engine.max_num_batched_tokens = args.max_num_batched_tokens;
  options.engine.prefix_caching = !args.no_prefix_caching;
  options.tokens_per_chunk = args.tokens_per_chunk;
  options.limits.max_body_bytes = args.max_body_bytes;
  options.limits.header_timeout = std::chrono::milliseconds(args.header_timeout_ms);
  options.rate_limits = RateLimits{args.rpm, args.tpm};
  options.tool_call_share = args.tool_call_share;
  options.faults = args.faults;
  options.faults.stall_first = std::chrono::milliseconds(args.stall_first_ms);
  options.faults.stall_between = std::chrono::milliseconds(args.stall_between_ms);

  // Standard error a pipe whose reader went away (a harness that read the base URL and moved on)
  // must cost the simulator a log line, not its life.
  std::signal(SIGPIPE, SIG_IGN);
  boost::asio::io_context io{1};
  sim::SimServer server(io, std::move(options));
  const auto port = server.listen(args.host, args.port);
  const bool ipv6 = args.host.find(':') != std::string::npos;
  std::printf("http://%s:%u\n", (ipv6 ? "[" + args.host + "]" : args.host).c_str(), port);
  std::fflush(stdout);
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](auto, int) { io.stop(); });
  io.run();
}

}  // namespace

void add_sim_command(CLI::App& app) {
  auto args = std::make_shared<SimArgs>();
  auto* cmd = app.add_subcommand("sim", "Run a simulated OpenAI-compatible inference server");
  cmd->add_option("--profile", args->profiles, "MODEL:PRECISION@HARDWARE[xN], repeatable")->capture_default_str();
  cmd->add_option("--catalog", args->catalogs, "YAML file of extra hardware, models and precisions, repeatable");
  cmd->add_option("--host", args->host, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", args->port, "Port (0 picks a free one); the base URL is printed first")
      ->capture_default_str();
  cmd->add_option("--speedup", args->speedup, "Divide every model time by this factor")
      ->check(positive())
      ->capture_default_str();
  cmd->add_option("--max-num-seqs", args->max_num_seqs, "Most sequences in one batch")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--max-num-batched-tokens", args->max_num_batched_tokens,
                  "Tokens computed in one engine step; longer prompts are prefilled in chunks")
      ->check(CLI::Range(1, 1 << 24))
      ->capture_default_str();
  cmd->add_flag("--no-prefix-caching", args->no_prefix_caching, "Compute every prompt in full, shared prefix or not");
  cmd->add_option("--tokens-per-chunk", args->tokens_per_chunk, "Tokens per streamed event")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--served-model-name", args->served_model_name, "Model name to serve (one profile only)");
  cmd->add_option("--api-key", args->api_key, "Require this bearer key on /v1 routes");
  cmd->add_option("--rpm", args->rpm, "Requests per minute per model (429 beyond, as Groq)")->check(positive());
  cmd->add_option("--tpm", args->tpm, "Tokens (prompt + output) per minute per model")->check(positive());
  cmd->add_option("--max-body-bytes", args->max_body_bytes, "Largest request body accepted")->capture_default_str();
  cmd->add_option("--header-timeout-ms", args->header_timeout_ms, "Time allowed to send a request's headers")
      ->check(positive())
      ->capture_default_str();
  cmd->add_option("--tool-call-share", args->tool_call_share,
                  "Share of requests with tools and tool_choice \"auto\" answered with a call of the first function "
                  "(the same prompt always alike)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  add_fault_options(*cmd, *args);
  cmd->callback([args] { run_sim(*args); });
}

}  // namespace infergate::cli
