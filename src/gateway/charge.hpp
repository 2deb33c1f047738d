#pragma once
// What a finished request is charged: the tokens its key's limits are reconciled with, and its
// ledger row holds.
#include <cstdint>
#include <optional>

#include "openai/request_view.hpp"
#include "openai/stream_chunk.hpp"

namespace infergate::gateway {

struct Charge {
  std::int64_t prompt = 0;
  std::int64_t completion = 0;
  const char* source = "none";  // "usage" (the upstream's), "estimate", or "none"
};

// An upstream's count as charged: a negative one (an upstream's bug, or a count beyond the
// int64 range read back negative) as none, and none above kMostTokensCharged, so that a key's
// window never goes down by what a request reports and sums cannot overflow.
inline constexpr std::int64_t kMostTokensCharged = std::int64_t{1} << 40;

// What the request used: the upstream's usage, or (a stream cut before its usage chunk, a client
// that left mid-stream) the prompt estimate and a token per text event relayed; nothing for a
// request that failed before any text reached the client.
Charge charge(const openai::RequestView& view, const std::optional<openai::Usage>& usage, int status,
              std::int64_t text_events);

// `usage` with each count held to what is charged.
openai::Usage charged(const openai::Usage& usage);

}  // namespace infergate::gateway
