#pragma once
// Rate-limit counters shared by every gateway replica, in Redis (auth.state: redis://host:port):
// the same one-minute windows as LocalRateLimits. Each I/O thread has its own connection and never
// blocks on it; the reconciliation of real usage is sent without waiting for its reply.
//
// Exact (the default): one Lua script per request checks and counts it, so replicas can never
// admit more than the limit between them.
//
// Leased (auth.state_leases): a request that the thread's lease of the window does not cover asks
// Redis for a lease: lease_size() requests and as many times its tokens, never more than an eighth
// of what the window has left, and at least the request itself; what the last lease still held
// goes back in the same script, so a thread never holds more than its last grant.
// Requests that find a lease already being asked for wait for it, then take from it or ask again.
// Requests the lease covers are admitted without a round trip, and refunds of unused tokens go
// back to it. Replicas still never admit more than the limit between them (a lease is counted in
// Redis when granted), but a lease's unused part is held back from the others: what a thread holds
// when its traffic stops, or when the window ends, goes unused. The headers' remaining counts are
// this thread's view: what Redis had left at its last grant, plus what its lease still holds.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/rate_limiter.hpp"
#include "core/text_hash.hpp"
#include "gateway/redis_connection.hpp"

namespace infergate::gateway {

class RedisRateLimits {
 public:
  // How many requests a thread asks a lease for: what it admitted from its last lease, scaled to
  // kLeaseSpanMs of that pace, between kLeaseRequests and kMostLeaseRequests. A fixed size ran out
  // every few milliseconds under load, and the requests behind each ask waited for its round trip.
  static constexpr std::int64_t kLeaseRequests = 64;
  static constexpr std::int64_t kMostLeaseRequests = 65536;
  static constexpr std::int64_t kLeaseSpanMs = 100;
  static std::int64_t lease_size(std::int64_t used, std::int64_t elapsed_ms);

  RedisRateLimits(const boost::asio::any_io_executor& executor, RedisAddress address, std::chrono::milliseconds timeout,
                  bool leases = false);
  ~RedisRateLimits();
  RedisRateLimits(const RedisRateLimits&) = delete;
  RedisRateLimits& operator=(const RedisRateLimits&) = delete;

  [[nodiscard]] bool leased() const { return leased_; }

  // The decision when it needs no round trip: leased, and the thread's lease covers the request.
  std::optional<Admission> admit_now(const std::string& bucket, const RateLimits& limits, std::int64_t tokens,
                                     std::int64_t now_ms);

  // The decision, or nullopt when Redis did not answer (the caller fails open or closed).
  boost::asio::awaitable<std::optional<Admission>> admit(const std::string& bucket, const RateLimits& limits,
                                                         std::int64_t tokens, std::int64_t now_ms);

  // As LocalRateLimits::reconcile; sent without waiting for the answer (or, leased, settled in
  // the lease where it can be).
  void reconcile(const Reservation& reservation, std::int64_t actual_tokens, std::int64_t now_ms);

 private:
  // What this thread may still admit of one bucket's window without asking Redis.
  struct Lease {
    std::int64_t window = -1;
    std::int64_t requests = 0;
    std::int64_t tokens = 0;
    // The window's counts in Redis after the last grant, leases included.
    std::int64_t counted_requests = 0;
    std::int64_t counted_tokens = 0;
    // The last grant: how many requests, when, and how many to ask for next time.
    std::int64_t granted_requests = 0;
    std::int64_t granted_at_ms = 0;
    std::int64_t wanted = kLeaseRequests;
    bool asking = false;  // a lease request is in flight
    // Woken (cancelled) when that request has its answer; waited on by the requests behind it.
    std::shared_ptr<boost::asio::steady_timer> answered;
  };

  boost::asio::awaitable<std::optional<Admission>> admit_exact(const std::string& bucket, const RateLimits& limits,
                                                               std::int64_t tokens, std::int64_t now_ms);
  boost::asio::awaitable<std::optional<Admission>> admit_leased(const std::string& bucket, const RateLimits& limits,
                                                                std::int64_t tokens, std::int64_t now_ms);
  // Admits the request from `lease` when it covers it.
  static std::optional<Admission> take(Lease& lease, const std::string& bucket, const RateLimits& limits,
                                       std::int64_t tokens, std::int64_t now_ms);

  boost::asio::any_io_executor executor_;
  std::unique_ptr<RedisConnection> connection_;
  bool leased_;
  std::unordered_map<std::string, Lease, TextHash, std::equal_to<>> leases_;  // by bucket
};

}  // namespace infergate::gateway
