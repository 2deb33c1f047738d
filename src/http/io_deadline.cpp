#include "http/io_deadline.hpp"

#include <limits>

#include "core/clock.hpp"

namespace infergate::http {

namespace net = boost::asio;

namespace {
constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
}

struct IoDeadline::State {
  State(net::ip::tcp::socket& s) : socket(&s), timer(s.get_executor()) {}
  net::ip::tcp::socket* socket;  // null once the owner is gone
  net::steady_timer timer;
  std::int64_t deadline_ns = kNever;   // of the operation in progress
  std::int64_t scheduled_ns = kNever;  // when the timer wakes; kNever while it is not waiting
  bool busy = false;
  bool expired = false;
};

IoDeadline::IoDeadline(net::ip::tcp::socket& socket) : state_(std::make_shared<State>(socket)) {}

IoDeadline::~IoDeadline() {
  state_->socket = nullptr;
  state_->timer.cancel();
}

void IoDeadline::begin(std::chrono::milliseconds timeout) {
  begin_until(coarse_deadline_ns(timeout));
}

void IoDeadline::begin_until(std::int64_t deadline_ns) {
  State& s = *state_;
  s.busy = true;
  s.expired = false;
  s.deadline_ns = deadline_ns;
  if (s.deadline_ns < s.scheduled_ns) {  // not waiting, or waiting for a later time than now needed
    schedule(state_, s.deadline_ns);
  }
}

void IoDeadline::end() {
  state_->busy = false;
}

void IoDeadline::disarm() {
  State& s = *state_;
  s.busy = false;
  if (s.scheduled_ns != kNever) {
    s.scheduled_ns = kNever;
    s.timer.cancel();
  }
}

bool IoDeadline::expired() const {
  return state_->expired;
}

void IoDeadline::schedule(const std::shared_ptr<State>& state, std::int64_t at_ns) {
  state->scheduled_ns = at_ns;
  state->timer.expires_at(to_time_point(at_ns));  // a wait already pending completes as aborted
  state->timer.async_wait([state](boost::system::error_code ec) {
    if (ec || state->socket == nullptr || state->scheduled_ns > monotonic_ns()) {
      return;  // replaced by a later schedule() or cancelled with its owner
    }
    state->scheduled_ns = kNever;
    if (!state->busy) {
      return;  // idle: the next operation schedules again
    }
    if (monotonic_ns() >= state->deadline_ns) {
      state->expired = true;
      boost::system::error_code ignored;
      state->socket->cancel(ignored);
    } else {
      schedule(state, state->deadline_ns);
    }
  });
}

}  // namespace infergate::http
