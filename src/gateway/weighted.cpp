#include "gateway/weighted.hpp"

#include <algorithm>

namespace infergate::gateway {

Deployment* Weighted::choose(std::span<Deployment* const> candidates, std::span<Deployment* const> tried) {
  if (candidates.empty()) {
    return nullptr;
  }
  std::uint64_t total = 0;
  for (const Deployment* d : candidates) {
    total += static_cast<std::uint64_t>(std::max(1, d->weight));
  }
  std::uint64_t position = next_.fetch_add(1, std::memory_order_relaxed) % total;
  std::size_t index = 0;
  while (position >= static_cast<std::uint64_t>(std::max(1, candidates[index]->weight))) {
    position -= static_cast<std::uint64_t>(std::max(1, candidates[index]->weight));
    ++index;
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Deployment* d = candidates[(index + i) % candidates.size()];
    if (std::find(tried.begin(), tried.end(), d) == tried.end()) {
      return d;
    }
  }
  return candidates[index];
}

}  // namespace infergate::gateway
