#pragma once
// Chooses the deployment for the next attempt of a request. Implementations must be safe to call
// from every I/O thread at once.
#include <memory>
#include <span>
#include <string_view>

#include "gateway/deployment.hpp"

namespace infergate::gateway {

class Balancer {
 public:
  virtual ~Balancer() = default;
  // Picks among `candidates`, preferring those not in `tried` (the attempts already made for
  // this request); nullptr only when `candidates` is empty.
  virtual Deployment* choose(std::span<Deployment* const> candidates, std::span<Deployment* const> tried) = 0;
};

// "round_robin", "weighted", "least_in_flight" or "lowest_latency"; throws std::invalid_argument
// for anything else.
std::unique_ptr<Balancer> make_balancer(std::string_view strategy);

}  // namespace infergate::gateway
