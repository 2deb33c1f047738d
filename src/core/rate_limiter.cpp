#include "core/rate_limiter.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>

#include "core/append_number.hpp"

namespace infergate {

Admission decide_admission(const RateLimits& limits, std::int64_t used_requests, std::int64_t used_tokens,
                           std::int64_t tokens, std::int64_t now_ms) {
  Admission a;
  const std::int64_t window = now_ms / kRateWindowMs;
  const std::chrono::milliseconds reset((window + 1) * kRateWindowMs - now_ms);
  if (limits.rpm) {
    a.requests = Quota{*limits.rpm, std::max<std::int64_t>(0, *limits.rpm - used_requests), reset};
    if (used_requests + 1 > *limits.rpm) {
      a.allowed = false;
      a.limited_by = "requests";
    }
  }
  if (limits.tpm) {
    a.tokens = Quota{*limits.tpm, std::max<std::int64_t>(0, *limits.tpm - used_tokens), reset};
    if (a.allowed && used_tokens + tokens > *limits.tpm) {
      a.allowed = false;
      a.limited_by = "tokens";
      a.too_large = tokens > *limits.tpm;
    }
  }
  if (a.allowed) {
    if (a.requests) {
      a.requests->remaining -= 1;
    }
    if (a.tokens) {
      a.tokens->remaining = std::max<std::int64_t>(0, a.tokens->remaining - tokens);
    }
    a.reservation.window = window;
    a.reservation.tokens = tokens;
  } else {
    a.retry_after = reset;
  }
  return a;
}

Admission WindowCounters::admit(const RateLimits& limits, std::int64_t tokens_wanted, std::int64_t now_ms) {
  const std::int64_t now_window = now_ms / kRateWindowMs;
  if (window != now_window) {
    *this = WindowCounters{now_window, 0, 0};
  }
  Admission a = decide_admission(limits, requests, tokens, tokens_wanted, now_ms);
  if (a.allowed) {
    requests += 1;
    tokens += tokens_wanted;
  }
  return a;
}

void WindowCounters::reconcile(const Reservation& reservation, std::int64_t actual_tokens, std::int64_t now_ms) {
  const std::int64_t now_window = now_ms / kRateWindowMs;
  if (reservation.window == now_window && window == now_window) {
    tokens = std::max<std::int64_t>(0, tokens + actual_tokens - reservation.tokens);
  } else if (actual_tokens > reservation.tokens) {
    if (window != now_window) {
      *this = WindowCounters{now_window, 0, 0};
    }
    tokens += actual_tokens - reservation.tokens;
  }
}

LocalRateLimits::Shard& LocalRateLimits::shard(const std::string& bucket) {
  return shards_[std::hash<std::string>{}(bucket) % shards_.size()];
}

Admission LocalRateLimits::admit(std::string bucket, const RateLimits& limits, std::int64_t tokens,
                                 std::int64_t now_ms) {
  Shard& s = shard(bucket);
  const std::lock_guard lock(s.mutex);
  Admission a = s.buckets[bucket].admit(limits, tokens, now_ms);
  if (a.allowed) {
    a.reservation.bucket = std::move(bucket);
  }
  return a;
}

void LocalRateLimits::reconcile(const Reservation& reservation, std::int64_t actual_tokens, std::int64_t now_ms) {
  if (reservation.bucket.empty()) {
    return;
  }
  Shard& s = shard(reservation.bucket);
  const std::lock_guard lock(s.mutex);
  s.buckets[reservation.bucket].reconcile(reservation, actual_tokens, now_ms);
}

namespace {

// A field name with the ": " that follows it in a head, in 32 zero-padded bytes: copied whole,
// a copy of a constant size is a few moves, where one of the name's own size is a call.
struct FieldName {
  std::array<char, 32> text{};
  std::size_t size = 0;
};

}  // namespace

// One limit's three field names.
struct RateLimitHeaders::Names {
  FieldName limit;
  FieldName remaining;
  FieldName reset;
};

namespace {

constexpr std::size_t kResetBound = 24;  // what write_reset writes at most

constexpr FieldName field_name(std::string_view name) {
  FieldName f;
  std::copy(name.begin(), name.end(), f.text.begin());
  f.text[name.size()] = ':';
  f.text[name.size() + 1] = ' ';
  f.size = name.size() + 2;
  return f;
}

// A limit's number as last written on this thread: a key's limits are the same on every
// response, and most responses in a row are of the same few keys. Copied whole, like a FieldName.
struct WrittenLimit {
  std::int64_t value = 0;
  std::array<char, kDecimalBound> text{};
  std::size_t size = 0;  // 0: nothing written yet

  char* write(char* out, std::int64_t limit) {
    if (size == 0 || limit != value) {
      size = static_cast<std::size_t>(write_decimal(text.data(), limit) - text.data());
      value = limit;
    }
    std::memcpy(out, text.data(), text.size());
    return out + size;
  }
};

thread_local std::array<WrittenLimit, 2> written_limits;  // requests, tokens

constexpr RateLimitHeaders::Names kRequestNames{field_name("x-ratelimit-limit-requests"),
                                                field_name("x-ratelimit-remaining-requests"),
                                                field_name("x-ratelimit-reset-requests")};
constexpr RateLimitHeaders::Names kTokenNames{field_name("x-ratelimit-limit-tokens"),
                                              field_name("x-ratelimit-remaining-tokens"),
                                              field_name("x-ratelimit-reset-tokens")};

}  // namespace

// NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): text_ is written before it is read.
RateLimitHeaders::RateLimitHeaders(const std::optional<Quota>& requests, const std::optional<Quota>& tokens) {
  if (requests) {
    add(kRequestNames, *requests, {});
  }
  if (tokens) {
    // Both limits count in the same window, so their resets are mostly the same text.
    add(kTokenNames, *tokens, requests && requests->reset == tokens->reset ? fields_[2].second : std::string_view());
  }
}

void RateLimitHeaders::add(const Names& names, const Quota& quota, std::string_view same_reset) {
  char* out = text_.data() + size_;
  const auto line = [&](const FieldName& name, auto write_value) {
    std::memcpy(out, name.text.data(), name.text.size());
    out += name.size;
    char* const value = out;
    out = write_value(out);
    // The name viewed where it is constant: a header list outlives these headers.
    fields_[count_++] = Field(std::string_view(name.text.data(), name.size - 2),
                              std::string_view(value, static_cast<std::size_t>(out - value)));
    *out++ = '\r';
    *out++ = '\n';
  };
  line(names.limit, [&](char* at) { return written_limits[&names == &kRequestNames ? 0 : 1].write(at, quota.limit); });
  line(names.remaining, [&](char* at) { return write_decimal(at, quota.remaining); });
  line(names.reset, [&](char* at) {
    if (same_reset.empty()) {
      return write_reset(at, quota.reset);
    }
    std::memcpy(at, same_reset.data(), kResetBound);  // it lies in this storage, with room after it
    return at + same_reset.size();
  });
  size_ = static_cast<std::size_t>(out - text_.data());
}

HeaderList rate_limit_headers(const Admission& admission) {
  const RateLimitHeaders built(admission);
  HeaderList headers;
  headers.reserve(built.fields().size());
  for (const auto& [name, value] : built.fields()) {
    headers.emplace_back(name, std::string(value));
  }
  return headers;
}

std::string format_reset(std::chrono::milliseconds duration) {
  char text[24];
  return std::string(text, write_reset(text, duration));
}

char* write_reset(char* out, std::chrono::milliseconds duration) {
  const std::int64_t ms = std::max<std::int64_t>(0, duration.count());
  // Below a thousand, as in every part but the minutes: one to three digits, written by hand.
  const auto small = [](char* at, std::int64_t n) {
    if (n >= 100) {
      *at++ = static_cast<char>('0' + n / 100);
    }
    if (n >= 10) {
      *at++ = static_cast<char>('0' + n / 10 % 10);
    }
    *at++ = static_cast<char>('0' + n % 10);
    return at;
  };
  if (ms < 1000) {
    out = small(out, ms);
    *out++ = 'm';
    *out++ = 's';
    return out;
  }
  // Seconds with up to three decimals and no trailing zeros: 1.5s, 47.62s, 6m0s.
  if (ms >= 60'000) {
    out = write_decimal(out, ms / 60'000);  // at most 15 digits, in the 24 bytes' first 20
    *out++ = 'm';
  }
  const std::int64_t part = ms % 60'000;
  out = small(out, part / 1000);
  if (const std::int64_t frac = part % 1000; frac != 0) {
    const char digits[3] = {static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                            static_cast<char>('0' + frac % 10)};
    std::size_t length = 3;
    while (digits[length - 1] == '0') {
      --length;
    }
    *out++ = '.';
    out = std::copy_n(digits, length, out);
  }
  *out++ = 's';
  return out;
}

std::optional<std::chrono::milliseconds> parse_reset(std::string_view text) {
  double total_ms = 0;
  bool any = false;
  while (!text.empty()) {
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || value < 0) {
      return std::nullopt;
    }
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    any = true;
    if (text.empty()) {
      total_ms += value * 1000;  // plain seconds
    } else if (text.starts_with("ms")) {
      total_ms += value;
      text.remove_prefix(2);
    } else if (text.front() == 'h' || text.front() == 'm' || text.front() == 's') {
      total_ms += value * (text.front() == 'h' ? 3'600'000 : text.front() == 'm' ? 60'000 : 1000);
      text.remove_prefix(1);
    } else {
      return std::nullopt;
    }
  }
  if (!any) {
    return std::nullopt;
  }
  // Up to a whole millisecond (a fraction of one is not yet the reset), but not for the error of
  // decimal fractions in binary: "2.023s" is 2023.0000000000002 ms.
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(total_ms - 1e-6)));
}

}  // namespace infergate
