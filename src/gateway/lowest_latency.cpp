#include "gateway/lowest_latency.hpp"

#include <algorithm>
#include <random>
#include <vector>

namespace infergate::gateway {

Deployment* LowestLatency::choose(std::span<Deployment* const> candidates, std::span<Deployment* const> tried) {
  if (candidates.empty()) {
    return nullptr;
  }
  thread_local Rng rng(std::random_device{}());
  thread_local std::vector<Deployment*> pool;
  pool.clear();
  for (Deployment* d : candidates) {
    if (std::find(tried.begin(), tried.end(), d) == tried.end()) {
      pool.push_back(d);
    }
  }
  if (pool.empty()) {
    pool.assign(candidates.begin(), candidates.end());
  }
  Deployment* a = pool[rng() % pool.size()];
  if (pool.size() == 1) {
    return a;
  }
  Deployment* b = pool[rng() % (pool.size() - 1)];
  if (b == a) {
    b = pool.back();
  }
  const auto ta = a->ttft_ewma_us.load(std::memory_order_relaxed);
  const auto tb = b->ttft_ewma_us.load(std::memory_order_relaxed);
  if (ta != tb) {
    return ta < tb ? a : b;
  }
  return a->in_flight.load(std::memory_order_relaxed) <= b->in_flight.load(std::memory_order_relaxed) ? a : b;
}

}  // namespace infergate::gateway
