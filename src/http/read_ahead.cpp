#include "http/read_ahead.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/detail/reactor.hpp>
#include <boost/asio/detail/reactor_op.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

namespace infergate::http {

namespace net = boost::asio;
using boost::system::error_code;
using net::detail::reactor;
using net::detail::reactor_op;

namespace {

// Asio keeps a socket's reactor registration in a protected member; a pointer to that member,
// formed in a derived class, reaches it on any socket.
struct SocketInternals : net::ip::tcp::socket {
  static reactor::per_descriptor_data& registration(net::ip::tcp::socket& socket) {
    constexpr auto impl = &SocketInternals::impl_;
    return (socket.*impl).get_implementation().reactor_data_;
  }
};

// Asks the kernel to report, with each receive, how many bytes the socket holds after it.
bool report_bytes_left(int fd) {
  const int on = 1;
  return ::setsockopt(fd, SOL_TCP, TCP_INQ, &on, sizeof on) == 0;
}

// What TCP_INQ reported: the bytes left after the receive, non-zero when an end of stream is
// pending; -1 when it reported nothing.
int bytes_left(msghdr& msg) {
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_TCP && c->cmsg_type == TCP_CM_INQ) {
      int left = 0;
      std::memcpy(&left, CMSG_DATA(c), sizeof left);
      return left;
    }
  }
  return -1;
}

}  // namespace

// One receive as a reactor operation, like Asio's own, except that it reports an emptied socket
// as exhausted: the reactor then skips the speculative receive of the next read on it, until
// epoll reports the socket readable again. Reused for every read of its connection.
class ReadAhead::Receive : public reactor_op {
 public:
  Receive() : reactor_op(error_code(), &Receive::perform, &Receive::finish) {}
  Receive(const Receive&) = delete;
  Receive& operator=(const Receive&) = delete;
  ~Receive() = default;

  void prepare(std::shared_ptr<State> owner, int fd, std::span<char> room, bool reports_left) {
    owner_ = std::move(owner);
    fd_ = fd;
    room_ = room;
    reports_left_ = reports_left;
    // What a read completed without being performed reports (its socket shutting down).
    ec_ = net::error::operation_aborted;
    bytes_transferred_ = 0;
  }

 private:
  static status perform(reactor_op* base) {
    auto* self = static_cast<Receive*>(base);
    iovec iov{self->room_.data(), self->room_.size()};
    alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (self->reports_left_) {
      msg.msg_control = control.data();
      msg.msg_controllen = control.size();
    }
    const ssize_t n = ::recvmsg(self->fd_, &msg, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      return not_done;
    }
    if (n < 0) {
      self->ec_ = error_code(errno, net::error::get_system_category());
      return done;
    }
    if (n == 0) {
      self->ec_ = net::error::eof;
      return done;
    }
    self->ec_ = {};
    self->bytes_transferred_ = static_cast<std::size_t>(n);
    return self->reports_left_ && bytes_left(msg) == 0 ? done_and_exhausted : done;
  }

  // `io_context` null: the io_context is going away with the read pending.
  static void finish(void* io_context, net::detail::scheduler_operation* base, const error_code& /*unused*/,
                     std::size_t /*unused*/);

  std::shared_ptr<State> owner_;  // while the read is in flight
  int fd_ = -1;
  std::span<char> room_;
  bool reports_left_ = false;
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
  bool reports_left = false;      // TCP_INQ is on
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
    s.io_reactor = &net::use_service<reactor>(net::query(socket.get_executor(), net::execution::context));
    s.reports_left = report_bytes_left(fd);
  }
  s.pending = true;
  s.receive.prepare(state_, fd, room, s.reports_left);
  s.io_reactor->start_op(reactor::read_op, fd, SocketInternals::registration(socket), &s.receive, false, true);
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
  constexpr auto as_tuple = net::as_tuple(net::use_awaitable);
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
