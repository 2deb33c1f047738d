#pragma once
#include <atomic>
#include <cstdint>

#include "gateway/balancer.hpp"

namespace infergate::gateway {

// Each deployment in turn; a retry skips those already tried for the request.
class RoundRobin final : public Balancer {
 public:
  Deployment* choose(std::span<Deployment* const> candidates, std::span<Deployment* const> tried) override;

 private:
  std::atomic<std::uint64_t> next_{0};
};

}  // namespace infergate::gateway
