#include "bench/interrupt.hpp"

#include <pthread.h>

#include <atomic>
#include <csignal>

namespace infergate::bench {

namespace {

std::atomic<int> requested{0};
static_assert(std::atomic<int>::is_always_lock_free, "set from a signal handler");

extern "C" void on_stop_signal(int signal_number) {
  request_stop(signal_number);
}

}  // namespace

sigset_t stop_signal_set() {
  sigset_t stops;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  return stops;
}

void stop_on_signals(bool again_kills) {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  action.sa_flags = SA_RESTART | (again_kills ? SA_RESETHAND : 0);
  sigaction(SIGINT, &action, nullptr);
  const sigset_t stops = stop_signal_set();
  pthread_sigmask(SIG_UNBLOCK, &stops, nullptr);
}

void request_stop(int signal_number) noexcept {
  int none = 0;
  requested.compare_exchange_strong(none, signal_number, std::memory_order_relaxed);
}

int stop_signal() noexcept {
  return requested.load(std::memory_order_relaxed);
}

void clear_stop() noexcept {
  requested.store(0, std::memory_order_relaxed);
}

}  // namespace infergate::bench
