#include "gateway/least_in_flight.hpp"

#include <algorithm>
#include <limits>

namespace infergate::gateway {

Deployment* LeastInFlight::choose(std::span<Deployment* const> candidates, std::span<Deployment* const> tried) {
  if (candidates.empty()) {
    return nullptr;
  }
  const std::uint64_t start = tie_breaker_.fetch_add(1, std::memory_order_relaxed);
  Deployment* best = nullptr;
  int best_load = std::numeric_limits<int>::max();
  bool best_untried = false;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Deployment* d = candidates[(start + i) % candidates.size()];
    const bool untried = std::find(tried.begin(), tried.end(), d) == tried.end();
    const int load = d->in_flight.load(std::memory_order_relaxed);
    if ((untried && !best_untried) || (untried == best_untried && load < best_load)) {
      best = d;
      best_load = load;
      best_untried = untried;
    }
  }
  return best;
}

}  // namespace infergate::gateway
