#include "gateway/redis_rate_limits.hpp"

#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

#include "core/append_number.hpp"
#include "core/as_tuple.hpp"

namespace infergate::gateway {

namespace net = boost::asio;

namespace {

// KEYS[1]: the bucket's window; ARGV: rpm (-1: none), tpm (-1: none), tokens, expiry in ms.
// Returns {admitted, requests before, tokens before}.
constexpr const char* kAdmitScript = R"lua(
local r = tonumber(redis.call('HGET', KEYS[1], 'r') or '0')
local t = tonumber(redis.call('HGET', KEYS[1], 't') or '0')
local rpm, tpm, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if (rpm >= 0 and r + 1 > rpm) or (tpm >= 0 and t + n > tpm) then
  return {0, r, t}
end
redis.call('HINCRBY', KEYS[1], 'r', 1)
redis.call('HINCRBY', KEYS[1], 't', n)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, r, t}
)lua";

// KEYS[1]: the bucket's window; ARGV: rpm (-1: none), tpm (-1: none), the asking request's
// tokens, requests and tokens wanted, expiry in ms, requests and tokens given back (what the
// asker's last lease still held). Takes back what is given, then refuses as kAdmitScript does or
// grants what was wanted, but no more than an eighth of what the window has left, and at least the
// asking request. Returns {requests granted (0: refused), tokens granted, requests before, tokens
// before}, "before" counting neither the grant nor what was given back.
constexpr const char* kLeaseScript = R"lua(
local r = math.max(0, tonumber(redis.call('HGET', KEYS[1], 'r') or '0') - tonumber(ARGV[7]))
local t = math.max(0, tonumber(redis.call('HGET', KEYS[1], 't') or '0') - tonumber(ARGV[8]))
local rpm, tpm, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local gr, gt = 0, 0
if not ((rpm >= 0 and r + 1 > rpm) or (tpm >= 0 and t + n > tpm)) then
  gr, gt = tonumber(ARGV[4]), math.max(n, tonumber(ARGV[5]))
  if rpm >= 0 then gr = math.max(1, math.min(gr, math.floor((rpm - r) / 8))) end
  if tpm >= 0 then gt = math.max(n, math.min(gt, math.floor((tpm - t) / 8))) end
end
redis.call('HSET', KEYS[1], 'r', r + gr, 't', t + gt)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return {gr, gt, r, t}
)lua";

// KEYS[1]: a window; ARGV: tokens to add (may be negative), expiry in ms.
constexpr const char* kAdjustScript = R"lua(
if redis.call('HINCRBY', KEYS[1], 't', ARGV[1]) < 0 then redis.call('HSET', KEYS[1], 't', 0) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
)lua";

// Twice the window: a key outlives its minute long enough for late reconciliations.
constexpr std::int64_t kExpiryMs = 2 * kRateWindowMs;

std::string window_key(const std::string& bucket, std::int64_t window) {
  std::string key = "infergate:rl:";
  key += bucket;
  key.push_back(':');
  append_decimal(key, window);
  return key;
}

const std::string& admit_sha() {
  static const std::string sha = redis_script_sha1(kAdmitScript);
  return sha;
}

const std::string& lease_sha() {
  static const std::string sha = redis_script_sha1(kLeaseScript);
  return sha;
}

const std::string& adjust_sha() {
  static const std::string sha = redis_script_sha1(kAdjustScript);
  return sha;
}

}  // namespace

RedisRateLimits::RedisRateLimits(const net::any_io_executor& executor, RedisAddress address,
                                 std::chrono::milliseconds timeout, bool leases)
    : executor_(executor),
      connection_(std::make_unique<RedisConnection>(
          executor, std::move(address), timeout,
          std::vector<std::string>{leases ? kLeaseScript : kAdmitScript, kAdjustScript})),
      leased_(leases) {}

RedisRateLimits::~RedisRateLimits() = default;

std::int64_t RedisRateLimits::lease_size(std::int64_t used, std::int64_t elapsed_ms) {
  const std::int64_t paced = used * kLeaseSpanMs / std::max<std::int64_t>(1, elapsed_ms);
  return std::clamp(paced, kLeaseRequests, kMostLeaseRequests);
}

net::awaitable<std::optional<Admission>> RedisRateLimits::admit(const std::string& bucket, const RateLimits& limits,
                                                                std::int64_t tokens, std::int64_t now_ms) {
  return leased_ ? admit_leased(bucket, limits, tokens, now_ms) : admit_exact(bucket, limits, tokens, now_ms);
}

std::optional<Admission> RedisRateLimits::admit_now(const std::string& bucket, const RateLimits& limits,
                                                    std::int64_t tokens, std::int64_t now_ms) {
  const auto it = leased_ ? leases_.find(bucket) : leases_.end();
  if (it == leases_.end() || it->second.window != now_ms / kRateWindowMs) {
    return std::nullopt;
  }
  return take(it->second, bucket, limits, tokens, now_ms);
}

std::optional<Admission> RedisRateLimits::take(Lease& lease, const std::string& bucket, const RateLimits& limits,
                                               std::int64_t tokens, std::int64_t now_ms) {
  if ((limits.rpm && lease.requests < 1) || (limits.tpm && lease.tokens < tokens)) {
    return std::nullopt;
  }
  // Counted as if what the lease still holds were not used yet: the headers report it as left.
  Admission a = decide_admission(limits, lease.counted_requests - lease.requests, lease.counted_tokens - lease.tokens,
                                 tokens, now_ms);
  if (!a.allowed) {
    return std::nullopt;
  }
  lease.requests -= 1;
  lease.tokens -= tokens;
  a.reservation.bucket = bucket;
  return a;
}

net::awaitable<std::optional<Admission>> RedisRateLimits::admit_leased(const std::string& bucket,
                                                                       const RateLimits& limits, std::int64_t tokens,
                                                                       std::int64_t now_ms) {
  const std::int64_t window = now_ms / kRateWindowMs;
  for (;;) {
    Lease& lease = leases_[bucket];
    if (lease.window == window) {
      if (auto a = take(lease, bucket, limits, tokens, now_ms)) {
        co_return a;
      }
    }
    if (!lease.asking) {
      break;
    }
    // Held by its own pointer: the map may move the lease while this request waits.
    const std::shared_ptr<net::steady_timer> answered = lease.answered;
    co_await answered->async_wait(as_tuple);
  }
  Lease& asking = leases_[bucket];
  asking.asking = true;
  if (!asking.answered) {
    asking.answered = std::make_shared<net::steady_timer>(executor_, net::steady_timer::time_point::max());
  }
  // What the lease still holds goes back with the request for the next one, so that a thread
  // holds no more than its last grant (and the unused tokens of its requests in flight).
  std::int64_t back_requests = 0;
  std::int64_t back_tokens = 0;
  if (asking.window == window) {
    back_requests = std::max<std::int64_t>(0, asking.requests);
    back_tokens = std::max<std::int64_t>(0, asking.tokens);
    asking.requests -= back_requests;
    asking.tokens -= back_tokens;
    asking.counted_requests -= back_requests;
    asking.counted_tokens -= back_tokens;
  }
  if (asking.granted_requests > 0) {
    asking.wanted = lease_size(asking.granted_requests - back_requests, now_ms - asking.granted_at_ms);
  }
  const std::int64_t wanted = asking.wanted;
  const std::string key = window_key(bucket, window);
  // Started before the co_await: GCC 12 miscompiles temporaries inside co_await expressions.
  auto answer =
      connection_->command({"EVALSHA", lease_sha(), "1", key, limits.rpm.value_or(-1), limits.tpm.value_or(-1), tokens,
                            wanted, tokens * wanted, kExpiryMs, back_requests, back_tokens},
                           net::use_awaitable);
  const auto reply = co_await std::move(answer);
  // Looked up again: other requests ran while this one waited.
  Lease& lease = leases_[bucket];
  lease.asking = false;
  lease.answered->cancel();  // the requests behind this one take from the lease, or ask
  if (!reply || reply->type != RedisReply::Type::array || reply->elements.size() != 4) {
    co_return std::nullopt;
  }
  const auto& e = reply->elements;
  const std::int64_t granted_requests = e[0].integer;
  const std::int64_t granted_tokens = e[1].integer;
  if (granted_requests <= 0) {
    // Refused by the same rule the script applied to these counts.
    co_return decide_admission(limits, e[2].integer, e[3].integer, tokens, now_ms);
  }
  if (lease.window < window) {
    lease.window = window;
    lease.requests = lease.tokens = lease.counted_requests = lease.counted_tokens = 0;
  }
  lease.granted_requests = granted_requests;
  lease.granted_at_ms = now_ms;
  if (lease.window == window) {
    // A limit the key did not have until now may have left a count below zero.
    lease.requests = std::max<std::int64_t>(0, lease.requests) + granted_requests;
    lease.tokens = std::max<std::int64_t>(0, lease.tokens) + granted_tokens;
    lease.counted_requests = std::max(lease.counted_requests, e[2].integer + granted_requests);
    lease.counted_tokens = std::max(lease.counted_tokens, e[3].integer + granted_tokens);
    if (auto a = take(lease, bucket, limits, tokens, now_ms)) {
      co_return a;
    }
  }
  // The grant counted this request in Redis, so it is admitted even where the lease cannot show it
  // (a later window began here while it waited): by the rule the script applied to these counts.
  Admission a = decide_admission(limits, e[2].integer, e[3].integer, tokens, now_ms);
  a.reservation.bucket = bucket;
  co_return a;
}

net::awaitable<std::optional<Admission>> RedisRateLimits::admit_exact(const std::string& bucket,
                                                                      const RateLimits& limits, std::int64_t tokens,
                                                                      std::int64_t now_ms) {
  const std::int64_t window = now_ms / kRateWindowMs;
  const std::string key = window_key(bucket, window);
  // Started before the co_await: GCC 12 miscompiles temporaries inside co_await expressions.
  auto answer = connection_->command(
      {"EVALSHA", admit_sha(), "1", key, limits.rpm.value_or(-1), limits.tpm.value_or(-1), tokens, kExpiryMs},
      net::use_awaitable);
  const auto reply = co_await std::move(answer);
  if (!reply || reply->type != RedisReply::Type::array || reply->elements.size() != 3) {
    co_return std::nullopt;
  }
  // The script applied decide_admission's rule to these counts: the same call gives its decision
  // and the headers.
  const auto& e = reply->elements;
  Admission a = decide_admission(limits, e[1].integer, e[2].integer, tokens, now_ms);
  if (a.allowed) {
    a.reservation.bucket = bucket;
  }
  co_return a;
}

void RedisRateLimits::reconcile(const Reservation& reservation, std::int64_t actual_tokens, std::int64_t now_ms) {
  if (reservation.bucket.empty()) {
    return;
  }
  const std::int64_t window = now_ms / kRateWindowMs;
  std::int64_t delta = actual_tokens - reservation.tokens;
  std::int64_t target = reservation.window;
  if (reservation.window != window) {
    if (delta <= 0) {
      return;  // no refund to a window that ended
    }
    target = window;
  }
  if (delta == 0) {
    return;
  }
  if (leased_ && target == reservation.window) {
    // Settled in the lease of the window the tokens were reserved in, while this thread holds it:
    // a refund stays with the lease, an excess comes out of it as far as it goes.
    if (auto it = leases_.find(reservation.bucket); it != leases_.end() && it->second.window == target) {
      Lease& lease = it->second;
      const std::int64_t from_lease = delta < 0 ? delta : std::min(delta, std::max<std::int64_t>(0, lease.tokens));
      lease.tokens -= from_lease;
      delta -= from_lease;
      if (delta == 0) {
        return;
      }
      lease.counted_tokens += delta;
    }
  }
  connection_->send({"EVALSHA", adjust_sha(), "1", window_key(reservation.bucket, target), delta, kExpiryMs});
}

}  // namespace infergate::gateway
