#pragma once
// Rate-limit counters shared by every gateway replica, in Redis (auth.state: redis://host:port):
// the same one-minute windows as LocalRateLimits, checked and counted by one Lua script per
// request (a reply awaited), so replicas can never admit more than the limit between them; the
// reconciliation of real usage is sent without waiting for its reply. Each I/O thread has its own
// connection and never blocks on it.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "core/rate_limiter.hpp"
#include "gateway/redis_connection.hpp"

namespace infergate::gateway {

class RedisRateLimits {
 public:
  RedisRateLimits(const boost::asio::any_io_executor& executor, RedisAddress address,
                  std::chrono::milliseconds timeout);
  ~RedisRateLimits();
  RedisRateLimits(const RedisRateLimits&) = delete;
  RedisRateLimits& operator=(const RedisRateLimits&) = delete;

  // The decision, or nullopt when Redis did not answer (the caller fails open or closed).
  boost::asio::awaitable<std::optional<Admission>> admit(const std::string& bucket, const RateLimits& limits,
                                                         std::int64_t tokens, std::int64_t now_ms);

  // As LocalRateLimits::reconcile; sent without waiting for the answer.
  void reconcile(const Reservation& reservation, std::int64_t actual_tokens, std::int64_t now_ms);

 private:
  std::unique_ptr<RedisConnection> connection_;
};

}  // namespace infergate::gateway
