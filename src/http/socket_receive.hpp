#pragma once
// A receive that tells Asio's reactor when it left its socket empty.
//
// Asio tries a receive as soon as a read starts, unless the reactor knows the socket is empty;
// its own receive reports an empty socket only at the end of stream, so on a kept-alive
// connection each request's read first fails a receive with EAGAIN (a system call) and then waits
// for epoll. These receives report a socket they emptied, as nginx's and haproxy's do: a receive
// shorter than its room took all there was, and the reactor then starts the next read by waiting,
// until epoll reports the socket readable again. (Asio's readiness wait is no way out: it re-arms
// epoll with a system call of its own.)
//
// The one exception is an end of stream that arrived with the last bytes: the receive stops short
// of it, and no further epoll event will come. Epoll reports it as EPOLLRDHUP, which Asio's
// reactor does not ask for; watch_peer_close() adds it to the socket's registration, and a
// receive that sees it among the events epoll last reported leaves the next read to find the end.
#include <boost/asio/associated_allocator.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/detail/reactor.hpp>
#include <boost/asio/detail/reactor_op.hpp>
#include <boost/asio/execution/context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/query.hpp>
#include <boost/asio/recycling_allocator.hpp>
#include <boost/system/error_code.hpp>

#include <cstddef>
#include <span>
#include <utility>

namespace infergate::http {

// A socket's entry in its reactor: what epoll reports for it is kept there.
using Registration = boost::asio::detail::reactor::per_descriptor_data;

Registration registration_of(boost::asio::ip::tcp::socket& socket);

// The reactor that serves `socket` (a lookup under a lock: keep it).
boost::asio::detail::reactor& reactor_of(boost::asio::ip::tcp::socket& socket);

// Asks epoll to report, with `socket`'s readiness, that its peer has closed; false where it
// cannot (the receives then never report an empty socket). Once per connection, before its reads;
// `reactor` is reactor_of(socket).
bool watch_peer_close(boost::asio::detail::reactor& reactor, boost::asio::ip::tcp::socket& socket);

// One non-blocking receive into `room`, as a reactor operation performs it: not_done while there
// is nothing to receive, done with `ec` and `bytes` set, or done_and_exhausted when it emptied
// the socket. `registration` is registration_of() the socket whose descriptor is `fd`.
boost::asio::detail::reactor_op::status receive_once(int fd, std::span<char> room, Registration registration,
                                                     boost::system::error_code& ec, std::size_t& bytes);

// Starts `op`, a read on `socket`, on its reactor.
void start_read_op(boost::asio::detail::reactor& reactor, boost::asio::ip::tcp::socket& socket,
                   boost::asio::detail::reactor_op* op);

namespace detail {

// The operation behind async_receive_some(), allocated per read from Asio's per-thread cache.
template <class Handler>
class ReceiveOp : public boost::asio::detail::reactor_op {
 public:
  using Allocator = boost::asio::recycling_allocator<ReceiveOp>;

  ReceiveOp(int fd, std::span<char> room, Registration registration, Handler handler)
      // A read completed without being performed (its socket shutting down) reports an abort.
      : reactor_op(boost::asio::error::operation_aborted, &ReceiveOp::perform, &ReceiveOp::finish),
        fd_(fd),
        room_(room),
        registration_(registration),
        handler_(std::move(handler)) {}
  ReceiveOp(const ReceiveOp&) = delete;
  ReceiveOp& operator=(const ReceiveOp&) = delete;
  ~ReceiveOp() = default;

 private:
  static status perform(reactor_op* base) {
    auto* self = static_cast<ReceiveOp*>(base);
    return receive_once(self->fd_, self->room_, self->registration_, self->ec_, self->bytes_transferred_);
  }

  // `io_context` null: the io_context is going away with the read pending; the handler is only
  // destroyed.
  static void finish(void* io_context, boost::asio::detail::scheduler_operation* base,
                     const boost::system::error_code& /*unused*/, std::size_t /*unused*/) {
    auto* self = static_cast<ReceiveOp*>(base);
    Handler handler(std::move(self->handler_));
    const boost::system::error_code ec = self->ec_;
    const std::size_t bytes = self->bytes_transferred_;
    self->~ReceiveOp();
    Allocator().deallocate(self, 1);
    if (io_context != nullptr) {
      std::move(handler)(ec, bytes);
    }
  }

  int fd_;
  std::span<char> room_;
  Registration registration_;
  Handler handler_;
};

}  // namespace detail

// socket.async_read_some(room, token) with the receive above; `reactor` is reactor_of(socket).
// The handler runs on the socket's thread, as the reactor completes the read.
template <class Token>
auto async_receive_some(boost::asio::detail::reactor& reactor, boost::asio::ip::tcp::socket& socket,
                        std::span<char> room, Token&& token) {
  return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
      [&reactor, &socket, room](auto handler) {
        using Op = detail::ReceiveOp<decltype(handler)>;
        Op* op = typename Op::Allocator().allocate(1);
        new (op) Op(socket.native_handle(), room, registration_of(socket), std::move(handler));
        start_read_op(reactor, socket, op);
      },
      token);
}

}  // namespace infergate::http
