#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "cli/commands.hpp"
#include "cli/number_checks.hpp"
#include "gateway/gateway.hpp"

namespace infergate::cli {

namespace {

struct ServeArgs {
  std::string config;
  std::vector<std::string> upstreams;
  std::string upstream_api_key;
  std::string upstream_api_key_env;
  std::string balancer = "least_in_flight";
  int max_attempts = 3;
  int connect_timeout_ms = 5'000;
  int first_byte_timeout_ms = 60'000;
  int idle_timeout_ms = 60'000;
  std::string host;
  std::uint16_t port = 0;
  int threads = 0;
  std::string access_log;
};

// The quick start's upstream key: given, read from the named environment variable (which keeps it
// out of the process list), or none.
std::string upstream_key(const ServeArgs& args) {
  if (args.upstream_api_key_env.empty()) {
    return args.upstream_api_key;
  }
  const char* key = std::getenv(args.upstream_api_key_env.c_str());
  if (key == nullptr || *key == '\0') {
    throw CLI::ValidationError("--upstream-api-key-env",
                               fmt::format("the environment variable {} is not set", args.upstream_api_key_env));
  }
  return key;
}

void run_serve(const ServeArgs& args, const CLI::App& cmd) {
  gateway::GatewayOptions options;
  options.config_path = args.config;
  const std::string key = upstream_key(args);
  for (const auto& url : args.upstreams) {
    options.upstreams.push_back({url, key});
  }
  options.strategy = args.balancer;
  options.retry.max_attempts = args.max_attempts;
  options.upstream_settings.connect_timeout = std::chrono::milliseconds(args.connect_timeout_ms);
  options.upstream_settings.first_byte_timeout = std::chrono::milliseconds(args.first_byte_timeout_ms);
  options.upstream_settings.idle_timeout = std::chrono::milliseconds(args.idle_timeout_ms);
  if (cmd.count("--host") > 0) {
    options.host = args.host;
  }
  if (cmd.count("--port") > 0) {
    options.port = args.port;
  }
  if (cmd.count("--threads") > 0) {
    options.threads = args.threads;
  }
  if (cmd.count("--access-log") > 0) {
    options.access_log = args.access_log;
  }

  gateway::Gateway gw(std::move(options));
  const auto port = gw.listen();
  const std::string& host = gw.server().host;
  const std::string shown = host.find(':') == std::string::npos ? host : "[" + host + "]";
  std::printf("http://%s:%u\n", shown.c_str(), port);
  std::fflush(stdout);
  gw.run();
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  auto* cmd = app.add_subcommand("serve", "Run the OpenAI-compatible gateway in front of one or more upstreams");
  auto* config = cmd->add_option("--config", a->config, "gateway.yaml (SIGHUP reloads it)")->check(CLI::ExistingFile);
  auto* upstream =
      cmd->add_option("--upstream", a->upstreams,
                      "Quick start without a file: upstream base URL, repeatable; serves every model it lists");
  config->excludes(upstream);
  // The quick start's settings need its --upstream: with --config they would be ignored, and the
  // user would believe them in force.
  std::vector<CLI::Option*> quick_start;
  auto* key = cmd->add_option("--upstream-api-key", a->upstream_api_key,
                              "Quick start: bearer key sent to the upstreams (seen by anyone who can list processes)");
  quick_start.push_back(key);
  quick_start.push_back(
      cmd->add_option("--upstream-api-key-env", a->upstream_api_key_env,
                      "Quick start: the environment variable that holds the upstreams' bearer key (GROQ_API_KEY, ...)")
          ->excludes(key));
  quick_start.push_back(cmd->add_option("--balancer", a->balancer,
                                        "Quick start: round_robin, weighted, least_in_flight or lowest_latency")
                            ->check(CLI::IsMember({"round_robin", "weighted", "least_in_flight", "lowest_latency"}))
                            ->capture_default_str());
  quick_start.push_back(
      cmd->add_option("--max-attempts", a->max_attempts, "Quick start: attempts per request before giving up")
          ->check(CLI::Range(1, 20))
          ->capture_default_str());
  quick_start.push_back(
      cmd->add_option("--connect-timeout-ms", a->connect_timeout_ms, "Quick start: upstream connect timeout")
          ->check(positive())
          ->capture_default_str());
  quick_start.push_back(
      cmd->add_option("--first-byte-timeout-ms", a->first_byte_timeout_ms, "Quick start: request sent -> response head")
          ->check(positive())
          ->capture_default_str());
  quick_start.push_back(
      cmd->add_option("--idle-timeout-ms", a->idle_timeout_ms, "Quick start: longest silence mid-response")
          ->check(positive())
          ->capture_default_str());
  for (CLI::Option* option : quick_start) {
    option->needs(upstream);
  }
  cmd->add_option("--host", a->host, "Address to listen on (default 127.0.0.1, or the file's server.host)");
  cmd->add_option("--port", a->port, "Port; 0 picks a free one. The base URL is printed first");
  cmd->add_option("--threads", a->threads, "I/O threads (0: one per core)")->check(non_negative());
  cmd->add_option("--access-log", a->access_log, "JSON lines per request: a file, or - for standard error");
  cmd->callback([a, cmd] {
    if (a->config.empty() && a->upstreams.empty()) {
      throw CLI::ValidationError("serve", "give --config FILE or at least one --upstream URL");
    }
    run_serve(*a, *cmd);
  });
}

}  // namespace infergate::cli
