#pragma once
// Idle keep-alive connections to upstreams, per origin. One pool per I/O thread: no locks, and a
// request's upstream connection lives on the thread that serves the request.
#include <cstddef>
#include <memory>
#include <vector>

#include "http/client.hpp"
#include "http/url.hpp"

namespace infergate::gateway {

class UpstreamPool {
 public:
  // The number of the origin `base` belongs to (scheme, host and port), with its TLS
  // verification: connections are shared by every deployment with the same number, whatever
  // its path. Numbers are small, dense and the same for the life of the process, across
  // reloads; they are handed out under a lock, when a configuration is loaded.
  static std::size_t origin_of(const http::Url& base, bool tls_verify);

  explicit UpstreamPool(std::size_t max_idle_per_origin = 256) : max_idle_(max_idle_per_origin) {}

  // The most recently kept idle connection to `origin`, or null. The peer may have closed it
  // meanwhile. Not a coroutine: most requests find one, and open a connection only when not.
  std::unique_ptr<http::Connection> take(std::size_t origin);

  // Keeps the connection for the next request when its last response was read to the end.
  void release(std::size_t origin, std::unique_ptr<http::Connection> connection);

 private:
  std::size_t max_idle_;
  std::vector<std::vector<std::unique_ptr<http::Connection>>> idle_;  // by origin number
};

}  // namespace infergate::gateway
