#pragma once
// The request pipeline of `infergate serve`: route by model, pick a deployment, forward, retry
// before the first byte, stream the answer through, log. One Proxy per I/O thread (it owns that
// thread's upstream connections); the route table is shared and immutable.
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>

#include "gateway/access_log.hpp"
#include "gateway/gateway_metrics.hpp"
#include "gateway/retry_policy.hpp"
#include "gateway/route_table.hpp"
#include "gateway/upstream_pool.hpp"
#include "http/server.hpp"
#include "openai/api_error.hpp"

namespace infergate::gateway {

struct ProxyOptions {
  RetryPolicy retry;
  OutlierPolicy outlier;
  std::chrono::milliseconds connect_timeout{5'000};
  std::chrono::milliseconds first_byte_timeout{60'000};  // request sent -> response head
  std::chrono::milliseconds idle_timeout{60'000};        // between body reads
  http::TlsOptions tls;
};

class Proxy {
 public:
  // `metrics` is shared by every thread's Proxy; `access_log` may be null.
  Proxy(std::shared_ptr<const RouteTable> routes, ProxyOptions options, GatewayMetrics& metrics, AccessLog* access_log);

  boost::asio::awaitable<void> handle(http::Exchange& ex);

 private:
  struct Context;
  boost::asio::awaitable<void> proxy(http::Exchange& ex, Context& ctx);
  boost::asio::awaitable<void> forward(http::Exchange& ex, Context& ctx);
  boost::asio::awaitable<void> relay(http::Exchange& ex, Context& ctx, http::Connection& conn,
                                     const http::ResponseHead& head, std::int64_t head_ns);
  static boost::asio::awaitable<void> respond_error(http::Exchange& ex, Context& ctx, const openai::ApiError& error,
                                                    std::string_view retry_after = {});
  void finish(const Context& ctx);

  std::shared_ptr<const RouteTable> routes_;
  ProxyOptions options_;
  GatewayMetrics& metrics_;
  AccessLog* access_log_;
  UpstreamPool pool_;
};

}  // namespace infergate::gateway
