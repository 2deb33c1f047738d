#pragma once
// A time limit on each read or write of a connection that costs nothing per operation: starting
// an operation only moves a deadline forward. One timer per connection wakes at the deadline it
// last saw and, if the deadline has moved meanwhile, sleeps again until the new one; only when an
// operation is still pending past its deadline does it cancel the socket. Beast's own stream
// timeout instead starts and cancels a timer for every operation (two timer-queue updates and an
// extra completion each), which a proxy pays several times per request; this pays one start and
// one cancel per response.
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <memory>

namespace infergate::http {

class IoDeadline {
 public:
  explicit IoDeadline(boost::asio::ip::tcp::socket& socket);
  ~IoDeadline();  // the timer's handler may still run later: it finds the state detached
  IoDeadline(const IoDeadline&) = delete;
  IoDeadline& operator=(const IoDeadline&) = delete;

  // Brackets one operation: it must end within `timeout` of begin() (measured on the coarse clock,
  // so a few milliseconds more: core/clock.hpp), or by CLOCK_MONOTONIC `deadline_ns` (a limit on several
  // operations together, such as the reads of one request head).
  void begin(std::chrono::milliseconds timeout);
  void begin_until(std::int64_t deadline_ns);
  void end();
  // The connection goes quiet (a response read to its end): the timer stops waiting, so that an
  // idle connection holds no pending work that would keep its io_context running.
  void disarm();

  // True when the last operation was cancelled for passing its deadline.
  [[nodiscard]] bool expired() const;

 private:
  struct State;
  static void schedule(const std::shared_ptr<State>& state, std::int64_t at_ns);

  std::shared_ptr<State> state_;
};

}  // namespace infergate::http
