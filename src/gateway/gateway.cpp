#include "gateway/gateway.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <csignal>

#include <thread>

namespace infergate::gateway {

namespace net = boost::asio;

struct Gateway::Worker {
  Worker(std::shared_ptr<const RouteTable> routes, const GatewayOptions& options, GatewayMetrics& metrics,
         AccessLog* log)
      : proxy(std::move(routes), options.proxy, metrics, log),
        server(
            io, [this](http::Exchange& ex) { return proxy.handle(ex); }, options.limits) {}
  net::io_context io{1};
  Proxy proxy;
  http::Server server;
  std::thread thread;
};

Gateway::Gateway(GatewayOptions options) : options_(std::move(options)) {
  routes_ = discover_routes(options_.upstreams, options_.strategy, options_.proxy.connect_timeout);
  metrics_ = std::make_unique<GatewayMetrics>(*routes_);
  if (!options_.access_log.empty()) {
    access_log_ = std::make_unique<AccessLog>(options_.access_log);
  }
  const int threads =
      options_.threads > 0 ? options_.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 0; i < threads; ++i) {
    workers_.push_back(std::make_unique<Worker>(routes_, options_, *metrics_, access_log_.get()));
  }
}

Gateway::~Gateway() {
  stop();
  for (auto& w : workers_) {
    if (w->thread.joinable()) {
      w->thread.join();
    }
  }
}

std::uint16_t Gateway::listen() {
  std::uint16_t port = options_.port;
  for (auto& w : workers_) {
    port = w->server.listen(options_.host, port, true);
  }
  return port;
}

void Gateway::run() {
  for (std::size_t i = 1; i < workers_.size(); ++i) {
    workers_[i]->thread = std::thread([io = &workers_[i]->io] {
      auto guard = net::make_work_guard(*io);
      io->run();
    });
  }
  auto& io = workers_.front()->io;
  net::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([this](boost::system::error_code ec, int) {
    if (!ec) {
      stop();
    }
  });
  auto guard = net::make_work_guard(io);
  io.run();
}

void Gateway::stop() {
  for (auto& w : workers_) {
    w->server.close();
    w->io.stop();
  }
}

}  // namespace infergate::gateway
