#pragma once
// `infergate serve`: one io_context per thread, each with its own listener on the shared port
// (SO_REUSEPORT), its own Proxy and upstream connections. A request lives on one thread.
// Configuration comes from a YAML file (reloaded on SIGHUP) or from upstream discovery.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gateway/proxy.hpp"
#include "gateway/route_table.hpp"
#include "gateway/snapshot.hpp"
#include "http/server.hpp"

namespace prometheus {
class Registry;
}

namespace infergate::gateway {

class MetricTallies;

struct GatewayOptions {
  std::string config_path;  // gateway.yaml; when empty, `upstreams` are discovered
  // Quick start: upstreams to discover, and what a file would say per model and provider.
  std::vector<UpstreamSpec> upstreams;
  std::string strategy = "least_in_flight";
  RetryPolicy retry;
  ProviderConfig upstream_settings;
  // Command-line values for the server section; each one set wins over the file.
  std::optional<std::string> host;
  std::optional<std::uint16_t> port;
  std::optional<int> threads;
  std::optional<std::string> access_log;
  ProxyOptions proxy;
  http::ServerLimits limits;
};

class Gateway {
 public:
  // Loads the file or discovers the upstreams; throws ConfigError or std::runtime_error.
  explicit Gateway(GatewayOptions options);
  ~Gateway();
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  // Binds every thread's listener; returns the port.
  std::uint16_t listen();
  // Serves until stop() or SIGINT/SIGTERM; SIGHUP reloads the file. A signal drains: the
  // listeners close, requests in flight get up to server.drain_ms to finish, then the threads
  // stop (and the usage ledger writes what it holds when the gateway is destroyed).
  void run();
  void stop();

  // Reads the file again and swaps the snapshot in; on any problem keeps the old one and returns
  // false (the problems are logged). Requests in flight finish on the snapshot they started with.
  bool reload();

  [[nodiscard]] const ServerConfig& server() const { return server_; }

 private:
  struct Worker;
  std::shared_ptr<const Snapshot> build(std::shared_ptr<const RouteTable> routes) const;
  void drain();
  [[nodiscard]] int active() const;

  GatewayOptions options_;
  ServerConfig server_;
  // The file's sections read only at start, as they were then: a reload that changes them says so.
  ServerConfig file_server_;
  std::optional<AuthConfig> file_auth_;
  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<MetricTallies> tallies_;
  SnapshotHandle snapshot_;
  std::unique_ptr<AccessLog> access_log_;
  std::unique_ptr<ControlPlane> control_;
  http::ServerStats server_stats_;  // before the workers, whose servers count into it
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace infergate::gateway
