#include "gateway/charge.hpp"

#include <algorithm>

namespace infergate::gateway {

namespace {

std::int64_t charged_count(std::int64_t tokens) {
  return std::clamp<std::int64_t>(tokens, 0, kMostTokensCharged);
}

}  // namespace

openai::Usage charged(const openai::Usage& usage) {
  return {charged_count(usage.prompt_tokens), charged_count(usage.completion_tokens)};
}

Charge charge(const openai::RequestView& view, const std::optional<openai::Usage>& usage, int status,
              std::int64_t text_events) {
  if (usage) {
    const openai::Usage counted = charged(*usage);
    return Charge{counted.prompt_tokens, counted.completion_tokens, "usage"};
  }
  if ((status > 0 && status < 400) || (status == 499 && text_events > 0)) {
    return Charge{view.prompt_tokens_estimate, text_events, "estimate"};
  }
  return Charge{};
}

}  // namespace infergate::gateway
