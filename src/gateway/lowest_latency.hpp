#pragma once
#include "core/random.hpp"
#include "gateway/balancer.hpp"

namespace infergate::gateway {

// Power of two choices on the moving average of time to first token: two random untried
// deployments, the one that has been answering faster wins (fewer in flight breaks ties). A
// deployment never measured counts as fastest, so new or recovered ones get traffic at once.
class LowestLatency final : public Balancer {
 public:
  Deployment* choose(std::span<Deployment* const> candidates, std::span<Deployment* const> tried) override;
};

}  // namespace infergate::gateway
