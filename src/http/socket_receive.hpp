#pragma once
// A receive that tells Asio's reactor when it left its socket empty.
//
// Asio tries a receive as soon as a read starts, unless the reactor knows the socket is empty;
// its own receive reports an empty socket only at the end of stream, so on a kept-alive
// connection each request's read first fails a receive with EAGAIN (a system call) and then waits
// for epoll. These receives ask the kernel, with TCP_INQ, what is left after them (a pending end
// of stream counts), and report an emptied socket as exhausted: the reactor then starts the next
// read by waiting, until epoll reports the socket readable again. (Asio's readiness wait is no
// way out: it re-arms epoll with a system call of its own.) Where TCP_INQ is unavailable, they
// behave as Asio's.
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

// Asks the kernel to report, with each receive on `socket`, what the socket holds after it;
// false where it cannot (the receives then never report an empty socket).
bool report_bytes_left(boost::asio::ip::tcp::socket& socket);

// One non-blocking receive into `room`, as a reactor operation performs it: not_done while there
// is nothing to receive, done with `ec` and `bytes` set, or done_and_exhausted when it emptied
// the socket.
boost::asio::detail::reactor_op::status receive_once(int fd, std::span<char> room, bool reports_left,
                                                     boost::system::error_code& ec, std::size_t& bytes);

// The reactor that serves `socket` (a lookup under a lock: keep it).
boost::asio::detail::reactor& reactor_of(boost::asio::ip::tcp::socket& socket);

// Starts `op`, a read on `socket`, on its reactor.
void start_read_op(boost::asio::detail::reactor& reactor, boost::asio::ip::tcp::socket& socket,
                   boost::asio::detail::reactor_op* op);

namespace detail {

// The operation behind async_receive_some(), allocated per read from Asio's per-thread cache.
template <class Handler>
class ReceiveOp : public boost::asio::detail::reactor_op {
 public:
  using Allocator = boost::asio::recycling_allocator<ReceiveOp>;

  ReceiveOp(int fd, std::span<char> room, bool reports_left, Handler handler)
      // A read completed without being performed (its socket shutting down) reports an abort.
      : reactor_op(boost::asio::error::operation_aborted, &ReceiveOp::perform, &ReceiveOp::finish),
        fd_(fd),
        room_(room),
        reports_left_(reports_left),
        handler_(std::move(handler)) {}
  ReceiveOp(const ReceiveOp&) = delete;
  ReceiveOp& operator=(const ReceiveOp&) = delete;
  ~ReceiveOp() = default;

 private:
  static status perform(reactor_op* base) {
    auto* self = static_cast<ReceiveOp*>(base);
    return receive_once(self->fd_, self->room_, self->reports_left_, self->ec_, self->bytes_transferred_);
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
  bool reports_left_;
  Handler handler_;
};

}  // namespace detail

// socket.async_read_some(room, token) with the receive above; `reactor` is reactor_of(socket) and
// `reports_left` what report_bytes_left() returned for it. The handler runs on the socket's
// thread, as the reactor completes the read.
template <class Token>
auto async_receive_some(boost::asio::detail::reactor& reactor, boost::asio::ip::tcp::socket& socket,
                        std::span<char> room, bool reports_left, Token&& token) {
  return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
      [&reactor, &socket, room, reports_left](auto handler) {
        using Op = detail::ReceiveOp<decltype(handler)>;
        Op* op = typename Op::Allocator().allocate(1);
        new (op) Op(socket.native_handle(), room, reports_left, std::move(handler));
        start_read_op(reactor, socket, op);
      },
      token);
}

}  // namespace infergate::http
