#include "gateway/gateway.hpp"

#include <pthread.h>

#include <prometheus/registry.h>
#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <csignal>
#include <functional>
#include <thread>

#include "gateway/config.hpp"
#include "gateway/gateway_metrics.hpp"
#include "http/send_batch.hpp"

namespace infergate::gateway {

namespace net = boost::asio;

struct Gateway::Worker {
  Worker(const SnapshotHandle& snapshot, const GatewayOptions& options, const ServerConfig& config, AccessLog* log,
         ControlPlane* control, http::ServerStats* stats)
      : proxy(snapshot, options.proxy, log, control, io.get_executor()),
        server(
            io, [this](http::Exchange& ex) { return proxy.handle(ex); }, options.limits, stats) {
    batch.busy_poll(config.busy_poll);
  }
  // Each worker's sockets and timers are used by its own thread only (anything from outside is
  // posted), so the reactor need not lock each descriptor around every read and write.
  net::io_context io{BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO};
  // Before the server and the proxy, which look it up.
  http::SendBatch& batch = http::SendBatch::install(io);
  Proxy proxy;
  http::Server server;
  std::thread thread;
};

Gateway::Gateway(GatewayOptions options)
    : options_(std::move(options)),
      registry_(std::make_shared<prometheus::Registry>()),
      tallies_(std::make_shared<MetricTallies>()) {
  // A pipe whose reader went away (standard error as the access log, piped into a pager that
  // quit) is a failed write to count, not the end of the gateway.
  std::signal(SIGPIPE, SIG_IGN);
  std::shared_ptr<const RouteTable> routes;
  if (!options_.config_path.empty()) {
    const GatewayConfig config = load_config(options_.config_path);
    server_ = file_server_ = config.server;
    file_auth_ = config.auth;
    routes = RouteTable::from_config(config);
    if (config.auth) {
      control_ = std::make_unique<ControlPlane>(*config.auth);
    }
  } else {
    routes = discover_routes(options_.upstreams, options_.strategy, options_.retry, options_.upstream_settings);
  }
  server_.host = options_.host.value_or(server_.host);
  server_.port = options_.port.value_or(server_.port);
  server_.threads = options_.threads.value_or(server_.threads);
  server_.access_log = options_.access_log.value_or(server_.access_log);
  if (!server_.access_log.empty()) {
    access_log_ = std::make_unique<AccessLog>(server_.access_log);
  }
  options_.limits.send_timeout = server_.send_timeout;
  snapshot_.store(build(std::move(routes)));  // its metrics read the access log's count
  const int threads =
      server_.threads > 0 ? server_.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 0; i < threads; ++i) {
    workers_.push_back(
        std::make_unique<Worker>(snapshot_, options_, server_, access_log_.get(), control_.get(), &server_stats_));
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

std::shared_ptr<const Snapshot> Gateway::build(std::shared_ptr<const RouteTable> routes) const {
  auto metrics = std::make_shared<const GatewayMetrics>(
      registry_, tallies_, *routes, control_ ? &control_->ledger() : nullptr, access_log_.get(), &server_stats_);
  return std::make_shared<const Snapshot>(Snapshot{std::move(routes), std::move(metrics)});
}

bool Gateway::reload() {
  if (options_.config_path.empty()) {
    spdlog::warn("SIGHUP ignored: the gateway was started without --config");
    return false;
  }
  try {
    const GatewayConfig config = load_config(options_.config_path);
    snapshot_.store(build(RouteTable::from_config(config)));
    spdlog::info("reloaded {}: {} models", options_.config_path, config.models.size());
    for (const auto& [section, changed] :
         {std::pair{"server", config.server != file_server_}, std::pair{"auth", config.auth != file_auth_}}) {
      if (changed) {
        spdlog::warn("{}: the {} section changed, and is read only at start: restart the gateway for it to apply",
                     options_.config_path, section);
      }
    }
    return true;
  } catch (const std::exception& e) {
    spdlog::error("reload rejected, keeping the running configuration: {}", e.what());
    return false;
  }
}

std::uint16_t Gateway::listen() {
  std::uint16_t port = server_.port;
  for (auto& w : workers_) {
    port = w->server.listen(server_.host, port, true);
  }
  return port;
}

void Gateway::run() {
  for (std::size_t i = 1; i < workers_.size(); ++i) {
    workers_[i]->thread = std::thread([io = &workers_[i]->io, i] {
      const std::string name = "ig-io-" + std::to_string(i);  // the first I/O thread is the main one
      (void)pthread_setname_np(pthread_self(), name.c_str());
      auto guard = net::make_work_guard(*io);
      io->run();
    });
  }
  auto& io = workers_.front()->io;
  net::signal_set stop_signals(io, SIGINT, SIGTERM);
  stop_signals.async_wait([this](boost::system::error_code ec, int) {
    if (!ec) {
      drain();
    }
  });
  net::signal_set reload_signal(io, SIGHUP);
  std::function<void(boost::system::error_code, int)> on_hup = [&](boost::system::error_code ec, int) {
    if (!ec) {
      reload();
      reload_signal.async_wait(on_hup);
    }
  };
  reload_signal.async_wait(on_hup);
  auto guard = net::make_work_guard(io);
  io.run();
}

int Gateway::active() const {
  int total = 0;
  for (const auto& w : workers_) {
    total += w->proxy.active();
  }
  return total;
}

void Gateway::drain() {
  for (auto& w : workers_) {
    net::post(w->io, [&server = w->server] { server.close(); });
  }
  spdlog::info("draining: {} requests in flight, up to {} ms", active(), server_.drain.count());
  net::co_spawn(
      workers_.front()->io,
      [this]() -> net::awaitable<void> {
        const auto deadline = std::chrono::steady_clock::now() + server_.drain;
        net::steady_timer timer(co_await net::this_coro::executor);
        while (active() > 0 && std::chrono::steady_clock::now() < deadline) {
          timer.expires_after(std::chrono::milliseconds(20));
          co_await timer.async_wait(net::use_awaitable);
        }
        if (active() > 0) {
          spdlog::warn("drain deadline passed with {} requests in flight; stopping", active());
        }
        stop();
      },
      net::detached);
}

void Gateway::stop() {
  // Closed on its own thread; a worker that is not running closes its listener when destroyed.
  for (auto& w : workers_) {
    net::post(w->io, [&server = w->server] { server.close(); });
    w->io.stop();
  }
}

}  // namespace infergate::gateway
