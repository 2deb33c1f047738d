#pragma once
// Requests-per-minute and tokens-per-minute limits per bucket (the gateway's: a key and a public
// model; the simulator's: a served model), counted in fixed one-minute windows aligned to the
// wall clock: a window admits at most `rpm` requests and `tpm` tokens, whatever the spread of load
// between replicas or over the minute. Tokens are reserved at admission (an estimate) and
// reconciled with what the request really used when it ends.
//
// RateLimitState is the interface users hold; LocalRateLimits keeps the counters in this process.
#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace infergate {

inline constexpr std::int64_t kRateWindowMs = 60'000;

struct RateLimits {
  std::optional<std::int64_t> rpm;
  std::optional<std::int64_t> tpm;
};

// One limit's state as the x-ratelimit-* headers report it.
struct Quota {
  std::int64_t limit = 0;
  std::int64_t remaining = 0;
  std::chrono::milliseconds reset{0};  // until the window ends
};

struct Reservation {
  std::string bucket;
  std::int64_t window = 0;
  std::int64_t tokens = 0;
};

struct Admission {
  bool allowed = true;
  std::string_view limited_by;  // "requests" or "tokens" when refused
  bool too_large = false;       // the request alone needs more than the whole TPM
  std::chrono::milliseconds retry_after{0};
  std::optional<Quota> requests;
  std::optional<Quota> tokens;
  Reservation reservation;  // valid when allowed
};

// The counts of one bucket's current window and the rules that admit and reconcile against
// them. Not synchronised: whoever holds it locks.
struct WindowCounters {
  std::int64_t window = -1;
  std::int64_t requests = 0;
  std::int64_t tokens = 0;

  // Counts the request when the limits allow it. The admission's reservation gets its window and
  // tokens; naming the bucket is left to the caller.
  Admission admit(const RateLimits& limits, std::int64_t tokens, std::int64_t now_ms);
  // See RateLimitState::reconcile.
  void reconcile(const Reservation& reservation, std::int64_t actual_tokens, std::int64_t now_ms);
};

class RateLimitState {
 public:
  virtual ~RateLimitState() = default;
  // Counts one request of `tokens` tokens (estimated) against `bucket` when the limits allow it.
  virtual Admission admit(std::string bucket, const RateLimits& limits, std::int64_t tokens, std::int64_t now_ms) = 0;
  // Replaces a reservation's estimate with what the request really used: the difference goes to
  // the window it was reserved in, or, once that has ended, any excess to the current one.
  virtual void reconcile(const Reservation& reservation, std::int64_t actual_tokens, std::int64_t now_ms) = 0;
};

class LocalRateLimits final : public RateLimitState {
 public:
  Admission admit(std::string bucket, const RateLimits& limits, std::int64_t tokens, std::int64_t now_ms) override;
  void reconcile(const Reservation& reservation, std::int64_t actual_tokens, std::int64_t now_ms) override;

 private:
  struct Shard {
    std::mutex mutex;
    std::unordered_map<std::string, WindowCounters> buckets;
  };
  Shard& shard(const std::string& bucket);

  std::array<Shard, 16> shards_;
};

// The decision given the counts already in the window (shared by every state implementation).
Admission decide_admission(const RateLimits& limits, std::int64_t used_requests, std::int64_t used_tokens,
                           std::int64_t tokens, std::int64_t now_ms);

// Response headers with constant names (the rate-limit headers, Retry-After).
using HeaderList = std::vector<std::pair<std::string_view, std::string>>;

// x-ratelimit-limit-*, x-ratelimit-remaining-* and x-ratelimit-reset-* for the limits that apply,
// written as the lines of an HTTP head into storage of their own: every response of a limited key
// carries them, so they cost no allocation, and a head takes them in one copy.
class RateLimitHeaders {
 public:
  using Field = std::pair<std::string_view, std::string_view>;
  RateLimitHeaders(const std::optional<Quota>& requests, const std::optional<Quota>& tokens);
  explicit RateLimitHeaders(const Admission& admission) : RateLimitHeaders(admission.requests, admission.tokens) {}
  RateLimitHeaders(const RateLimitHeaders&) = delete;  // the views point into this object
  RateLimitHeaders& operator=(const RateLimitHeaders&) = delete;

  // Each field as "name: value" and CRLF.
  [[nodiscard]] std::string_view lines() const { return {text_.data(), size_}; }
  // The same fields, their values viewing the lines and their names constant text.
  [[nodiscard]] std::vector<Field> fields() const;

 private:
  // The longest text the constructor writes, and what its copies may write past that end.
  static constexpr std::size_t kTextSize = 512;
  // Written before they are viewed, and not cleared first: on every response.
  std::array<char, kTextSize> text_;
  std::size_t size_ = 0;
};

HeaderList rate_limit_headers(const Admission& admission);

// "20ms", "1.5s", "6m0s": the duration format of OpenAI's and Groq's reset headers.
std::string format_reset(std::chrono::milliseconds duration);
// The most write_reset writes.
inline constexpr std::size_t kResetBound = 24;
// The same into `out`, which has room for kResetBound characters; returns the end.
char* write_reset(char* out, std::chrono::milliseconds duration);
// The inverse, also taking "1h2m3.5s" and plain seconds ("7.66"); nullopt for anything else
// (infinities and NaN included). A wait longer than kLongestAnnouncedWait counts as that.
std::optional<std::chrono::milliseconds> parse_reset(std::string_view text);

// The longest wait an upstream's reset or Retry-After header is taken for: a daily limit's reset
// is hours away, and a larger figure is an error that must not overflow the clock arithmetic.
inline constexpr std::chrono::hours kLongestAnnouncedWait{24};

}  // namespace infergate
