#pragma once
#include <atomic>
#include <cstdint>

#include "gateway/balancer.hpp"

namespace infergate::gateway {

// Each deployment in proportion to its weight, exactly over every cycle of total-weight requests
// (a shared counter walks the cumulative weights); a retry takes the next untried one.
class Weighted final : public Balancer {
 public:
  Deployment* choose(std::span<Deployment* const> candidates, std::span<Deployment* const> tried) override;

 private:
  std::atomic<std::uint64_t> next_{0};
};

}  // namespace infergate::gateway
