#include "gateway/redis_rate_limits.hpp"

#include <boost/asio/use_awaitable.hpp>

#include "core/append_number.hpp"

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

const std::string& adjust_sha() {
  static const std::string sha = redis_script_sha1(kAdjustScript);
  return sha;
}

}  // namespace

RedisRateLimits::RedisRateLimits(const net::any_io_executor& executor, RedisAddress address,
                                 std::chrono::milliseconds timeout)
    : connection_(std::make_unique<RedisConnection>(executor, std::move(address), timeout,
                                                    std::vector<std::string>{kAdmitScript, kAdjustScript})) {}

RedisRateLimits::~RedisRateLimits() = default;

net::awaitable<std::optional<Admission>> RedisRateLimits::admit(const std::string& bucket, const RateLimits& limits,
                                                                std::int64_t tokens, std::int64_t now_ms) {
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
  connection_->send({"EVALSHA", adjust_sha(), "1", window_key(reservation.bucket, target), delta, kExpiryMs});
}

}  // namespace infergate::gateway
