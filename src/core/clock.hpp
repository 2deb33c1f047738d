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
// costs twenty or more, and never ahead of it, but behind by a tick (4 ms) or more
// (kCoarseLagNs). For checks that may come a little late (is a cooldown over, how much of a total
// timeout is left), never for measurements or for a deadline that must not fire early.
inline std::int64_t coarse_monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// The coarse clock's step (a tick), read once.
inline const std::int64_t kCoarseStepNs = [] {
  timespec ts{};
  ::clock_getres(CLOCK_MONOTONIC_COARSE, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}();

// How far the coarse clock can trail the precise one: a step, and on virtual machines seen here
// a second one besides (3 to 8 ms behind with 4 ms steps, sampled continuously). One more keeps
// deadlines from it from falling early.
inline const std::int64_t kCoarseLagNs = 3 * kCoarseStepNs;

// CLOCK_MONOTONIC `timeout` from now, read on the coarse clock and put late by its largest lag,
// so that it does not fall before the precise now + timeout: for I/O time limits, which may
// expire a few milliseconds late but should not expire early, on paths that set one per read
// (a precise read costs twenty-odd nanoseconds, several times per proxied request).
inline std::int64_t coarse_deadline_ns(std::chrono::nanoseconds timeout) {
  return coarse_monotonic_ns() + kCoarseLagNs + timeout.count();
}

// CLOCK_REALTIME_COARSE in milliseconds: Unix time as of the kernel's last tick, for decisions
// a tick cannot change (which minute-long rate-limit window a request falls in).
inline std::int64_t coarse_unix_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  return std::int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1'000'000;
}

// Unix time in milliseconds at `now_ns`, a CLOCK_MONOTONIC time just read: that plus the offset
// between the two clocks, which each thread reads again once a second, so a step of the wall
// clock shows within a second. Saves a second precise read where a time was just taken.
inline std::int64_t unix_ms_at(std::int64_t now_ns) {
  struct Offset {
    std::int64_t until_ns = 0;
    std::int64_t realtime_minus_monotonic_ns = 0;
  };
  constinit thread_local Offset offset;
  if (now_ns >= offset.until_ns) {
    timespec wall{};
    ::clock_gettime(CLOCK_REALTIME, &wall);
    const std::int64_t mono = monotonic_ns();
    offset.realtime_minus_monotonic_ns = std::int64_t{wall.tv_sec} * 1'000'000'000 + wall.tv_nsec - mono;
    offset.until_ns = mono + 1'000'000'000;
  }
  return (now_ns + offset.realtime_minus_monotonic_ns) / 1'000'000;
}

// Unix time in milliseconds, now.
inline std::int64_t unix_ms() {
  return unix_ms_at(monotonic_ns());
}

inline std::chrono::steady_clock::time_point to_time_point(std::int64_t ns) {
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns));
}

}  // namespace infergate
