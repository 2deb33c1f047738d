#pragma once
// A device that reaches its datasheet's bandwidth and compute, with no time between steps: the
// model's figures then follow from the roofline alone.
#include "sim/perf_model.hpp"

namespace infergate::sim {

inline constexpr Efficiency kIdeal{.memory = 1, .compute = 1, .step_overhead_s = 0, .memory_utilization = 1};

}  // namespace infergate::sim
