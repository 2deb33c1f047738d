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

// The field names, requests' then tokens', each limit's in the order a head lists them.
constexpr std::array<std::array<std::string_view, 3>, 2> kNames{{
    {"x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"},
    {"x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"},
}};

// The longest first piece: the requests' limit line and the remaining requests' name.
constexpr std::size_t kLongestFirstPiece = kNames[0][0].size() + 2 + kDecimalBound + 2 + kNames[0][1].size() + 2;
// The longest piece between two counts: CRLF, the requests' reset line, the tokens' limit line and
// the remaining tokens' name (the one after the last count, a reset line, is shorter).
constexpr std::size_t kLongestPiece = 2 + kNames[0][2].size() + 2 + kResetBound + 2 + kNames[1][0].size() + 2 +
                                      kDecimalBound + 2 + kNames[1][1].size() + 2;
// Rounded up to whole vector stores.
constexpr std::size_t kPieceSize = 160;
static_assert(kLongestPiece <= kPieceSize && kLongestFirstPiece <= kLongestPiece);

// Whether two limits print the same but for their remaining count.
bool same_but_remaining(const std::optional<Quota>& a, const std::optional<Quota>& b) {
  return a.has_value() == b.has_value() && (!a || (a->limit == b->limit && a->reset == b->reset));
}

// A response's rate-limit lines differ from the last ones a thread wrote only in the two
// remaining counts until the key's limits change or its reset moves on, one tick of the coarse
// clock later: hundreds of responses at full load. The lines around the counts are kept as
// written last, in pieces copied whole (a copy of a constant size is a few vector moves, where one
// of the piece's own size is a call).
struct Template {
  struct Piece {
    std::array<char, kPieceSize> text{};
    std::size_t size = 0;
  };
  // As built, or as it starts: no limits and an empty first piece, which is right for none.
  std::optional<Quota> requests;  // their remaining counts are not in the pieces
  std::optional<Quota> tokens;
  std::array<Piece, 3> pieces{};  // before the first count, between the two, after the last
  std::size_t counts = 0;         // a count after each piece but the last

  [[nodiscard]] bool fits(const std::optional<Quota>& r, const std::optional<Quota>& t) const {
    return same_but_remaining(requests, r) && same_but_remaining(tokens, t);
  }

  void build(const std::optional<Quota>& r, const std::optional<Quota>& t) {
    requests = r;
    tokens = t;
    counts = 0;
    char* out = pieces[0].text.data();
    const auto append = [&](std::string_view text) {
      std::memcpy(out, text.data(), text.size());
      out += text.size();
    };
    const auto end_piece = [&] { pieces[counts].size = static_cast<std::size_t>(out - pieces[counts].text.data()); };
    for (std::size_t i = 0; i < kNames.size(); ++i) {
      const std::optional<Quota>& quota = i == 0 ? r : t;
      if (!quota) {
        continue;
      }
      const auto& names = kNames[i];
      append(names[0]);
      append(": ");
      out = write_decimal(out, quota->limit);
      append("\r\n");
      append(names[1]);
      append(": ");
      end_piece();
      out = pieces[++counts].text.data();
      append("\r\n");
      append(names[2]);
      append(": ");
      out = write_reset(out, quota->reset);
      append("\r\n");
    }
    end_piece();
  }
};

thread_local Template last_template;

}  // namespace

// NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): text_ is written before it is read.
RateLimitHeaders::RateLimitHeaders(const std::optional<Quota>& requests, const std::optional<Quota>& tokens) {
  Template& t = last_template;
  if (!t.fits(requests, tokens)) {
    t.build(requests, tokens);
  }
  std::array<std::int64_t, 2> remaining{};
  std::size_t n = 0;
  if (requests) {
    remaining[n++] = requests->remaining;
  }
  if (tokens) {
    remaining[n++] = tokens->remaining;
  }
  static_assert(kLongestFirstPiece + kDecimalBound + kLongestPiece + kDecimalBound + kPieceSize <= kTextSize,
                "the last piece's whole copy must fit");
  char* out = text_.data();
  for (std::size_t i = 0;; ++i) {
    std::memcpy(out, t.pieces[i].text.data(), kPieceSize);
    out += t.pieces[i].size;
    if (i == t.counts) {
      break;
    }
    out = write_decimal(out, remaining[i]);
  }
  size_ = static_cast<std::size_t>(out - text_.data());
}

std::vector<RateLimitHeaders::Field> RateLimitHeaders::fields() const {
  std::vector<Field> fields;
  std::string_view rest = lines();
  while (!rest.empty()) {
    const std::size_t colon = rest.find(": ");
    const std::size_t end = rest.find("\r\n", colon);
    const std::string_view name = rest.substr(0, colon);
    // The name viewed where it is constant: a header list outlives these headers.
    for (const auto& names : kNames) {
      for (const std::string_view constant : names) {
        if (constant == name) {
          fields.emplace_back(constant, rest.substr(colon + 2, end - colon - 2));
        }
      }
    }
    rest.remove_prefix(end + 2);
  }
  return fields;
}

HeaderList rate_limit_headers(const Admission& admission) {
  const RateLimitHeaders built(admission);
  HeaderList headers;
  for (const auto& [name, value] : built.fields()) {
    headers.emplace_back(name, std::string(value));
  }
  return headers;
}

std::string format_reset(std::chrono::milliseconds duration) {
  char text[kResetBound];
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
    out = write_decimal(out, ms / 60'000);  // at most 15 digits, in kResetBound's first 20
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
    if (ec != std::errc{} || !std::isfinite(value) || value < 0) {
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
  const auto longest = static_cast<double>(std::chrono::milliseconds(kLongestAnnouncedWait).count());
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(std::min(total_ms, longest) - 1e-6)));
}

}  // namespace infergate
