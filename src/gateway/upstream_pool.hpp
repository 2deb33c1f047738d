#pragma once
// Idle keep-alive connections to upstreams, per origin. One pool per I/O thread: no locks, and a
// request's upstream connection lives on the thread that serves the request.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "http/client.hpp"

namespace infergate::gateway {

class UpstreamPool {
 public:
  explicit UpstreamPool(std::size_t max_idle_per_origin = 256) : max_idle_(max_idle_per_origin) {}

  // The most recently kept idle connection to `url`, or null. The peer may have closed it
  // meanwhile. Not a coroutine: most requests find one, and open a connection only when not.
  std::unique_ptr<http::Connection> take(const http::Url& url);

  // Keeps the connection for the next request when its last response was read to the end.
  void release(const http::Url& url, std::unique_ptr<http::Connection> connection);

 private:
  // Keyed by the URL's parts rather than its text, so a lookup builds no string.
  struct UrlHash {
    std::size_t operator()(const http::Url& url) const;
  };
  struct UrlEqual {
    bool operator()(const http::Url& a, const http::Url& b) const;
  };

  std::size_t max_idle_;
  std::unordered_map<http::Url, std::vector<std::unique_ptr<http::Connection>>, UrlHash, UrlEqual> idle_;
};

}  // namespace infergate::gateway
