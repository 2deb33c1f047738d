#pragma once
// A server on loopback whose every request `handler` answers, run on its own thread.
#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <thread>

#include "http/server.hpp"

namespace infergate::http {

class RunningServer {
 public:
  explicit RunningServer(Handler handler, ServerLimits limits = {}) : server_(io_, std::move(handler), limits) {
    port = server_.listen("127.0.0.1", 0);
    thread_ = std::thread([this] { io_.run(); });
  }
  ~RunningServer() {
    io_.stop();
    thread_.join();
  }
  RunningServer(const RunningServer&) = delete;
  RunningServer& operator=(const RunningServer&) = delete;

  std::uint16_t port = 0;

 private:
  boost::asio::io_context io_;
  Server server_;
  std::thread thread_;
};

}  // namespace infergate::http
