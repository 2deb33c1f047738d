#include "gateway/upstream_pool.hpp"

namespace infergate::gateway {

std::size_t UpstreamPool::UrlHash::operator()(const http::Url& url) const {
  const std::hash<std::string> text;
  return text(url.host) ^ (text(url.path) * 31) ^ (std::size_t{url.port} << 1) ^ std::size_t{url.tls};
}

bool UpstreamPool::UrlEqual::operator()(const http::Url& a, const http::Url& b) const {
  return a.tls == b.tls && a.port == b.port && a.host == b.host && a.path == b.path;
}

std::unique_ptr<http::Connection> UpstreamPool::take(const http::Url& url) {
  auto& idle = idle_[url];
  if (idle.empty()) {
    return nullptr;
  }
  auto connection = std::move(idle.back());
  idle.pop_back();
  return connection;
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
