#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.hpp"
#include "gateway/gateway.hpp"

namespace infergate::cli {

namespace {

struct ServeArgs {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;
  std::vector<std::string> upstreams;
  std::string upstream_api_key;
  int threads = 0;
  std::string balancer = "least_in_flight";
  int max_attempts = 3;
  int connect_timeout_ms = 5'000;
  int first_byte_timeout_ms = 60'000;
  int idle_timeout_ms = 60'000;
  std::string access_log;
};

void run_serve(const ServeArgs& args) {
  gateway::GatewayOptions options;
  options.host = args.host;
  options.port = args.port;
  options.threads = args.threads;
  for (const auto& url : args.upstreams) {
    options.upstreams.push_back({url, args.upstream_api_key});
  }
  options.strategy = args.balancer;
  options.proxy.retry.max_attempts = args.max_attempts;
  options.proxy.connect_timeout = std::chrono::milliseconds(args.connect_timeout_ms);
  options.proxy.first_byte_timeout = std::chrono::milliseconds(args.first_byte_timeout_ms);
  options.proxy.idle_timeout = std::chrono::milliseconds(args.idle_timeout_ms);
  options.access_log = args.access_log;

  gateway::Gateway gw(std::move(options));
  const auto port = gw.listen();
  const bool ipv6 = args.host.find(':') != std::string::npos;
  std::printf("http://%s:%u\n", (ipv6 ? "[" + args.host + "]" : args.host).c_str(), port);
  std::fflush(stdout);
  gw.run();
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  auto* cmd = app.add_subcommand("serve", "Run the OpenAI-compatible gateway in front of one or more upstreams");
  cmd->add_option("--upstream", a->upstreams, "Upstream base URL, repeatable; serves every model it lists")->required();
  cmd->add_option("--upstream-api-key", a->upstream_api_key, "Bearer key sent to the upstreams");
  cmd->add_option("--host", a->host, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", a->port, "Port (0 picks a free one); the base URL is printed first")->capture_default_str();
  cmd->add_option("--threads", a->threads, "I/O threads (0: one per core)")->capture_default_str();
  cmd->add_option("--balancer", a->balancer, "round_robin or least_in_flight")
      ->check(CLI::IsMember({"round_robin", "least_in_flight"}))
      ->capture_default_str();
  cmd->add_option("--max-attempts", a->max_attempts, "Attempts per request before giving up")
      ->check(CLI::Range(1, 20))
      ->capture_default_str();
  cmd->add_option("--connect-timeout-ms", a->connect_timeout_ms, "Upstream connect timeout")->capture_default_str();
  cmd->add_option("--first-byte-timeout-ms", a->first_byte_timeout_ms, "Request sent -> response head")
      ->capture_default_str();
  cmd->add_option("--idle-timeout-ms", a->idle_timeout_ms, "Longest silence mid-response")->capture_default_str();
  cmd->add_option("--access-log", a->access_log, "JSON lines per request: a file, or - for standard error");
  cmd->callback([a] { run_serve(*a); });
}

}  // namespace infergate::cli
