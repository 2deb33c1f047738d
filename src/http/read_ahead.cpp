#include "http/read_ahead.hpp"

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <optional>
#include <utility>

#include "core/as_tuple.hpp"
#include "http/socket_receive.hpp"

namespace infergate::http {

namespace net = boost::asio;
using boost::system::error_code;
using net::detail::reactor;
using net::detail::reactor_op;

// The read as a reactor operation with socket_receive.hpp's receive; part of the state and reused
// for every read of its connection, so a read allocates nothing.
class ReadAhead::Receive : public reactor_op {
 public:
  Receive() : reactor_op(error_code(), &Receive::perform, &Receive::finish) {}
  Receive(const Receive&) = delete;
  Receive& operator=(const Receive&) = delete;
  ~Receive() = default;

  void prepare(std::shared_ptr<State> owner, int fd, std::span<char> room, Registration registration) {
    owner_ = std::move(owner);
    fd_ = fd;
    room_ = room;
    registration_ = registration;
    // What a read completed without being performed reports (its socket shutting down).
    ec_ = net::error::operation_aborted;
    bytes_transferred_ = 0;
  }

 private:
  static status perform(reactor_op* base) {
    auto* self = static_cast<Receive*>(base);
    return receive_once(self->fd_, self->room_, self->registration_, self->ec_, self->bytes_transferred_);
  }

  // `io_context` null: the io_context is going away with the read pending.
  static void finish(void* io_context, net::detail::scheduler_operation* base, const error_code& /*unused*/,
                     std::size_t /*unused*/);

  std::shared_ptr<State> owner_;  // while the read is in flight
  int fd_ = -1;
  std::span<char> room_;
  Registration registration_ = nullptr;
};

struct ReadAhead::State {
  bool pending = false;  // the read is in flight
  bool arrived = false;  // it completed while nobody waited: `ec` and `bytes` are its result
  error_code ec;
  std::size_t bytes = 0;
  std::function<void()> on_close;  // while a handler watches
  // The session, waiting for it. In an optional because Boost 1.81's any_completion_handler
  // cannot be move-assigned (its operator= wraps the handler in itself, endlessly).
  std::optional<net::any_completion_handler<void(error_code, std::size_t)>> waiter;
  reactor* io_reactor = nullptr;  // set by the first read
  Receive receive;
};

void ReadAhead::Receive::finish(void* io_context, net::detail::scheduler_operation* base, const error_code& /*unused*/,
                                std::size_t /*unused*/) {
  auto* self = static_cast<Receive*>(base);
  const error_code ec = self->ec_;
  const std::size_t bytes = self->bytes_transferred_;
  const std::shared_ptr<State> owner = std::move(self->owner_);  // may be the last reference to `self`
  if (io_context == nullptr) {
    owner->waiter.reset();  // the waiting session goes too; it would keep itself alive otherwise
    return;
  }
  ReadAhead::complete(*owner, ec, bytes);
}

ReadAhead::ReadAhead() : state_(std::make_shared<State>()) {}

void ReadAhead::start(net::ip::tcp::socket& socket, std::span<char> room) {
  State& s = *state_;
  const int fd = socket.native_handle();
  if (s.io_reactor == nullptr) {
    s.io_reactor = &reactor_of(socket);
    watch_peer_close(*s.io_reactor, socket);
  }
  s.pending = true;
  s.receive.prepare(state_, fd, room, registration_of(socket));
  start_read_op(*s.io_reactor, socket, &s.receive);
}

// Resumes the session if it waits, else keeps the result for it.
void ReadAhead::complete(State& state, error_code ec, std::size_t bytes) {
  state.pending = false;
  if (state.waiter) {
    auto waiter = std::move(*state.waiter);
    state.waiter.reset();
    waiter(ec, bytes);
    return;
  }
  state.arrived = true;
  state.ec = ec;
  state.bytes = bytes;
  if (ec && state.on_close) {
    auto on_close = std::move(state.on_close);
    on_close();  // end of stream or an error: the client is gone
  }
}

bool ReadAhead::pending() const {
  return state_->pending;
}

bool ReadAhead::arrived() const {
  return state_->arrived;
}

error_code ReadAhead::error() const {
  return state_->ec;
}

std::size_t ReadAhead::take() {
  state_->arrived = false;
  return state_->bytes;
}

net::awaitable<std::tuple<error_code, std::size_t>> ReadAhead::wait() {
  return net::async_initiate<decltype(as_tuple), void(error_code, std::size_t)>(
      [state = state_.get()](auto handler) { state->waiter.emplace(std::move(handler)); }, as_tuple);
}

void ReadAhead::watch(std::function<void()> on_close, const net::any_io_executor& executor) {
  if (state_->pending) {
    state_->on_close = std::move(on_close);
  } else if (state_->arrived && state_->ec) {  // gone before the handler looked
    net::post(executor, std::move(on_close));
  }
}

void ReadAhead::stop_watching() {
  state_->on_close = nullptr;
}

}  // namespace infergate::http
