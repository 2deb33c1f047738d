#pragma once
// The request pipeline of `infergate serve`: route by model, pick a deployment, forward, retry
// before the first byte, fall back to other models, stream the answer through, log. One Proxy per
// I/O thread (it owns that thread's upstream connections); the snapshot is shared and immutable.
#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>

#include "gateway/access_log.hpp"
#include "gateway/control_plane.hpp"
#include "gateway/outlier_detector.hpp"
#include "gateway/redis_rate_limits.hpp"
#include "gateway/retry_policy.hpp"
#include "gateway/snapshot.hpp"
#include "gateway/upstream_pool.hpp"
#include "http/server.hpp"
#include "openai/api_error.hpp"

namespace infergate::gateway {

struct ProxyOptions {
  OutlierPolicy outlier;
};

class Proxy {
 public:
  // `snapshot` is shared by every thread's Proxy and may be swapped at any time; `access_log` may
  // be null; `control` is null when callers need no key.
  // `executor` is this thread's: shared rate-limit state talks to Redis on it.
  Proxy(const SnapshotHandle& snapshot, ProxyOptions options, AccessLog* access_log, ControlPlane* control,
        const boost::asio::any_io_executor& executor);

  // Routes the request: not a coroutine itself, so that the inference path, taken by nearly every
  // request, costs one coroutine frame less.
  boost::asio::awaitable<void> handle(http::Exchange& ex);

  // Requests being proxied on this thread now (read from other threads while draining).
  [[nodiscard]] int active() const { return active_.load(std::memory_order_relaxed); }

 private:
  struct Context;
  struct Attempt;
  // POST /v1/chat/completions, /v1/completions and /v1/embeddings.
  boost::asio::awaitable<void> serve(http::Exchange& ex, std::string_view path);
  // Everything else: health, readiness, metrics, the model list, the admin API, errors.
  boost::asio::awaitable<void> handle_other(http::Exchange& ex, std::string_view path);
  void begin_context(http::Exchange& ex, std::string_view path, Context& ctx) const;
  // Why the request cannot go upstream, as far as this process can tell alone; null when it can.
  std::unique_ptr<Refusal> screen(http::Exchange& ex, Context& ctx);
  // The key's RPM/TPM limits counted in Redis (auth.state: redis://); null when they allow it.
  boost::asio::awaitable<std::unique_ptr<Refusal>> admit_shared(Context& ctx);
  // The shared decision when it needs no wait (no RPM/TPM, or the thread's lease covers the
  // request); nullopt when Redis must be asked.
  std::optional<std::unique_ptr<Refusal>> admit_shared_now(Context& ctx);
  std::unique_ptr<Refusal> conclude_shared(Context& ctx, std::optional<Admission> admission, std::int64_t reserve);
  boost::asio::awaitable<void> forward(http::Exchange& ex, Context& ctx);
  boost::asio::awaitable<void> attempt(Context& ctx, Deployment& d, Attempt& a);
  // Waits out a retry's backoff; a client that leaves cancels the wait.
  static boost::asio::awaitable<void> back_off(Context& ctx, std::chrono::milliseconds delay);
  static boost::asio::awaitable<void> respond_failure(http::Exchange& ex, Context& ctx, const Attempt& a);
  boost::asio::awaitable<void> relay(http::Exchange& ex, Context& ctx, http::Connection& conn,
                                     const http::ResponseHead& head, std::int64_t head_ns);
  // The client's response head from the upstream's: status, passed-through headers, ours; and,
  // for a body relayed whole (not an event stream), the upstream's Content-Length. Returns whether
  // the body is an event stream.
  static bool begin_response(http::Exchange& ex, Context& ctx, const http::ResponseHead& head, std::int64_t head_ns);
  // Notes why the upstream failed after the response began; the SSE error event to end a stream with.
  static std::string failed_mid_response(Context& ctx, const boost::system::error_code& ec,
                                         std::chrono::milliseconds left, bool sse);
  // Whether a write to the client failed; one that passed the send timeout is noted, so that the
  // access log tells a client that stopped reading from one that left.
  static bool write_failed(Context& ctx, const boost::system::error_code& ec);
  // Notes that the upstream sent an event longer than `limit`; the SSE error event to end with.
  static std::string event_too_long(Context& ctx, std::size_t limit);
  static boost::asio::awaitable<void> respond_error(http::Exchange& ex, Context& ctx, const openai::ApiError& error,
                                                    std::string_view retry_after = {});
  static boost::asio::awaitable<void> refuse(http::Exchange& ex, Context& ctx, const Refusal& refusal);
  // Replaces the key's token reservation with what the request used, once.
  void settle(Context& ctx);
  void finish(Context& ctx);

  const SnapshotHandle& snapshot_;
  ProxyOptions options_;
  AccessLog* access_log_;
  ControlPlane* control_;
  std::unique_ptr<RedisRateLimits> shared_limits_;  // with auth.state: redis://
  UpstreamPool pool_;
  std::atomic<int> active_{0};
};

}  // namespace infergate::gateway
