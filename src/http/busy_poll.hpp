#pragma once
// Busy polling: before an I/O thread sleeps in epoll it waits on its core for a while, polling
// epoll without sleeping every 2 µs, and sleeps only when none of those polls found anything.
// Waking a sleeping thread costs the waker a system call and an interrupt to the sleeper's core,
// and the sleeper a return from sleep: on a virtual machine more than a request's own work.
//
// The wait adapts as the kernel's haltpoll does: from the longest wait at first, it halves, down
// to none, after each sleep longer than the longest wait, and doubles, from 1 µs back up, after
// each sleep it would have caught, so an idle or lightly loaded thread sleeps at once.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "core/clock.hpp"

namespace infergate::http {

class BusyPoll {
 public:
  // The longest wait; zero (the default): never waits.
  void set_longest(std::chrono::nanoseconds longest) { longest_ns_ = next_ns_ = longest.count(); }
  [[nodiscard]] bool enabled() const { return longest_ns_ > 0; }
  [[nodiscard]] std::chrono::nanoseconds next_wait() const { return std::chrono::nanoseconds(next_ns_); }

  // Waits up to the next wait's length, calling `poll` (which must not block) every 2 µs; true as
  // soon as `poll` returns true or interrupt() is called, false when the time is up.
  template <class Poll>
  bool wait(Poll&& poll) {
    if (next_ns_ == 0) {
      return false;
    }
    const std::int64_t until = monotonic_ns() + next_ns_;
    for (std::int64_t now = monotonic_ns(); now < until; now = monotonic_ns()) {
      // Between polls, without a system call: what comes meanwhile is gathered into one round,
      // and a thread that has its core to itself loses at most this much to the wait.
      const std::int64_t poll_at = std::min(until, now + kPollEveryNs);
      while (monotonic_ns() < poll_at) {
        if (interrupted_.load(std::memory_order_relaxed)) {
          return true;
        }
        relax();
      }
      if (poll()) {
        return true;
      }
    }
    return false;
  }

  // The thread slept after a wait that found nothing, `idle_ns` since the wait began.
  void slept(std::int64_t idle_ns) {
    if (idle_ns <= longest_ns_) {
      next_ns_ = std::min(longest_ns_, std::max(kFirstWaitNs, 2 * next_ns_));
    } else {
      next_ns_ = next_ns_ / 2 < kFirstWaitNs ? 0 : next_ns_ / 2;
    }
  }

  // From any thread: ends the wait in progress, or the next one at once.
  void interrupt() { interrupted_.store(true, std::memory_order_relaxed); }
  // The thread is awake again: an interrupt from now on is for the next wait. Not at a wait's
  // start, where it would drop an interrupt that came just before.
  void woke() { interrupted_.store(false, std::memory_order_relaxed); }

 private:
  // Tells the core this is a wait loop: the sibling hyperthread gets the pipeline, and leaving
  // the loop does not flush it.
  static void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  static constexpr std::int64_t kFirstWaitNs = 1'000;
  static constexpr std::int64_t kPollEveryNs = 2'000;
  std::int64_t longest_ns_ = 0;
  std::int64_t next_ns_ = 0;
  std::atomic<bool> interrupted_{false};
};

}  // namespace infergate::http
