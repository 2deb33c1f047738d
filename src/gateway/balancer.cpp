#include "gateway/balancer.hpp"

#include <stdexcept>
#include <string>

#include "gateway/least_in_flight.hpp"
#include "gateway/round_robin.hpp"

namespace infergate::gateway {

std::unique_ptr<Balancer> make_balancer(std::string_view strategy) {
  if (strategy == "round_robin") {
    return std::make_unique<RoundRobin>();
  }
  if (strategy == "least_in_flight") {
    return std::make_unique<LeastInFlight>();
  }
  throw std::invalid_argument("unknown balancing strategy '" + std::string(strategy) +
                              "' (round_robin, least_in_flight)");
}

}  // namespace infergate::gateway
