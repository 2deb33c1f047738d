#include "gateway/upstream_pool.hpp"

namespace infergate::gateway {

namespace net = boost::asio;

std::size_t UpstreamPool::UrlHash::operator()(const http::Url& url) const {
  const std::hash<std::string> text;
  return text(url.host) ^ (text(url.path) * 31) ^ (std::size_t{url.port} << 1) ^ std::size_t{url.tls};
}

bool UpstreamPool::UrlEqual::operator()(const http::Url& a, const http::Url& b) const {
  return a.tls == b.tls && a.port == b.port && a.host == b.host && a.path == b.path;
}

net::awaitable<boost::system::result<PooledConnection>> UpstreamPool::acquire(net::any_io_executor executor,
                                                                              const http::Url& url,
                                                                              std::chrono::milliseconds connect_timeout,
                                                                              http::TlsOptions tls, bool fresh_only) {
  auto& idle = idle_[url];
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
  auto& idle = idle_[url];
  if (idle.size() < max_idle_) {
    idle.push_back(std::move(connection));
  }
}

}  // namespace infergate::gateway
