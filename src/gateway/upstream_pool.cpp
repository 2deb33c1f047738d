#include "gateway/upstream_pool.hpp"

#include <mutex>
#include <string>
#include <unordered_map>

namespace infergate::gateway {

std::size_t UpstreamPool::origin_of(const http::Url& base, bool tls_verify) {
  static std::mutex lock;
  static std::unordered_map<std::string, std::size_t> numbers;
  std::string key = (base.tls ? "https://" : "http://") + base.authority();
  if (base.tls && !tls_verify) {
    key += " unverified";  // never shares a connection with a deployment that verifies
  }
  const std::lock_guard guard(lock);
  return numbers.try_emplace(std::move(key), numbers.size()).first->second;
}

std::unique_ptr<http::Connection> UpstreamPool::take(std::size_t origin) {
  if (origin >= idle_.size() || idle_[origin].empty()) {
    return nullptr;
  }
  auto connection = std::move(idle_[origin].back());
  idle_[origin].pop_back();
  return connection;
}

void UpstreamPool::release(std::size_t origin, std::unique_ptr<http::Connection> connection) {
  if (!connection || !connection->reusable()) {
    return;
  }
  if (origin >= idle_.size()) {
    idle_.resize(origin + 1);
  }
  if (idle_[origin].size() < max_idle_) {
    idle_[origin].push_back(std::move(connection));
  }
}

}  // namespace infergate::gateway
