#pragma once
// One time base for the whole program: CLOCK_MONOTONIC in nanoseconds. libstdc++'s steady_clock
// reads CLOCK_MONOTONIC on Linux, so these values compare directly with any other process on the
// machine (the simulator's trace, Python's time.monotonic_ns()).
#include <chrono>
#include <cstdint>

namespace infergate {

inline std::int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline std::chrono::steady_clock::time_point to_time_point(std::int64_t ns) {
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns));
}

}  // namespace infergate
