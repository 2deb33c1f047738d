#include "gateway/balancer.hpp"

#include <stdexcept>
#include <string>

#include "gateway/least_in_flight.hpp"
#include "gateway/lowest_latency.hpp"
#include "gateway/round_robin.hpp"
#include "gateway/weighted.hpp"

namespace infergate::gateway {

std::unique_ptr<Balancer> make_balancer(std::string_view strategy) {
  if (strategy == "round_robin") {
    return std::make_unique<RoundRobin>();
  }
  if (strategy == "least_in_flight") {
    return std::make_unique<LeastInFlight>();
  }
  if (strategy == "weighted") {
    return std::make_unique<Weighted>();
  }
  if (strategy == "lowest_latency") {
    return std::make_unique<LowestLatency>();
  }
  throw std::invalid_argument("unknown balancing strategy '" + std::string(strategy) +
                              "' (round_robin, weighted, least_in_flight, lowest_latency)");
}

}  // namespace infergate::gateway
