#include <fmt/format.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <csignal>
#include <cstdio>

#include "cli/commands.hpp"
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
};

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
      ->check(CLI::PositiveNumber)
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
  cmd->add_option("--max-body-bytes", args->max_body_bytes, "Largest request body accepted")->capture_default_str();
  cmd->add_option("--header-timeout-ms", args->header_timeout_ms, "Time allowed to send a request's headers")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->callback([args] { run_sim(*args); });
}

}  // namespace infergate::cli
