#pragma once
// `infergate serve`: one io_context per thread, each with its own listener on the shared port
// (SO_REUSEPORT), its own Proxy and upstream connections. A request lives on one thread.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gateway/proxy.hpp"
#include "gateway/route_table.hpp"
#include "http/server.hpp"

namespace infergate::gateway {

struct GatewayOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;
  int threads = 0;  // 0: one per core
  std::vector<UpstreamSpec> upstreams;
  std::string strategy = "least_in_flight";
  ProxyOptions proxy;
  std::string access_log;  // "" for none, "-" for standard error, else a file
  http::ServerLimits limits;
};

class Gateway {
 public:
  // Discovers the routes; throws std::runtime_error when no upstream can be used.
  explicit Gateway(GatewayOptions options);
  ~Gateway();
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  // Binds every thread's listener; returns the port.
  std::uint16_t listen();
  // Serves until stop() or SIGINT/SIGTERM.
  void run();
  void stop();

  [[nodiscard]] const RouteTable& routes() const { return *routes_; }

 private:
  struct Worker;
  GatewayOptions options_;
  std::shared_ptr<const RouteTable> routes_;
  std::unique_ptr<GatewayMetrics> metrics_;
  std::unique_ptr<AccessLog> access_log_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace infergate::gateway
