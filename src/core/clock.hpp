#pragma once
// One time base for the whole program: CLOCK_MONOTONIC in nanoseconds. libstdc++'s steady_clock
// reads CLOCK_MONOTONIC on Linux, so these values compare directly with any other process on the
// machine (the simulator's trace, Python's time.monotonic_ns()).
#include <time.h>

#include <chrono>
#include <cstdint>

namespace infergate {

inline std::int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// CLOCK_MONOTONIC as of the kernel's last tick: a few nanoseconds to read where the precise clock
// costs twenty or more, and never ahead of it, but behind by a tick (4 ms) or, on an idle tickless
// machine, more. For checks that may come a little late (is a cooldown over, how much of a total
// timeout is left), never for measurements or for a deadline that must not fire early.
inline std::int64_t coarse_monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// CLOCK_REALTIME_COARSE in milliseconds: Unix time as of the kernel's last tick, for decisions
// a tick cannot change (which minute-long rate-limit window a request falls in).
inline std::int64_t coarse_unix_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  return std::int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1'000'000;
}

inline std::chrono::steady_clock::time_point to_time_point(std::int64_t ns) {
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns));
}

}  // namespace infergate
