#include "gateway/upstream_pool.hpp"

namespace infergate::gateway {

namespace net = boost::asio;

net::awaitable<boost::system::result<PooledConnection>> UpstreamPool::acquire(net::any_io_executor executor,
                                                                              const http::Url& url,
                                                                              std::chrono::milliseconds connect_timeout,
                                                                              http::TlsOptions tls, bool fresh_only) {
  auto& idle = idle_[url.to_string()];
  if (!fresh_only && !idle.empty()) {
    PooledConnection pooled{std::move(idle.back()), true};
    idle.pop_back();
    co_return pooled;
  }
  auto opened = co_await http::Connection::open(executor, url, connect_timeout, tls);
  if (!opened) {
    co_return opened.error();
  }
  co_return PooledConnection{std::move(*opened), false};
}

void UpstreamPool::release(const http::Url& url, std::unique_ptr<http::Connection> connection) {
  if (!connection || !connection->reusable()) {
    return;
  }
  auto& idle = idle_[url.to_string()];
  if (idle.size() < max_idle_) {
    idle.push_back(std::move(connection));
  }
}

}  // namespace infergate::gateway
