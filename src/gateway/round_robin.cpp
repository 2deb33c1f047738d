#include "gateway/round_robin.hpp"

#include <algorithm>

namespace infergate::gateway {

Deployment* RoundRobin::choose(std::span<Deployment* const> candidates, std::span<Deployment* const> tried) {
  if (candidates.empty()) {
    return nullptr;
  }
  const std::uint64_t start = next_.fetch_add(1, std::memory_order_relaxed);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Deployment* d = candidates[(start + i) % candidates.size()];
    if (std::find(tried.begin(), tried.end(), d) == tried.end()) {
      return d;
    }
  }
  return candidates[start % candidates.size()];
}

}  // namespace infergate::gateway
