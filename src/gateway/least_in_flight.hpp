#pragma once
#include <atomic>
#include <cstdint>

#include "gateway/balancer.hpp"

namespace infergate::gateway {

// The deployment with the fewest requests in flight; ties go round robin so that an idle fleet
// still spreads load. A retry prefers deployments not yet tried.
class LeastInFlight final : public Balancer {
 public:
  Deployment* choose(std::span<Deployment* const> candidates, std::span<Deployment* const> tried) override;

 private:
  std::atomic<std::uint64_t> tie_breaker_{0};
};

}  // namespace infergate::gateway
