#include "http/socket_receive.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <boost/asio/error.hpp>

#include <array>
#include <cerrno>
#include <cstring>

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

bool report_bytes_left(net::ip::tcp::socket& socket) {
  const int on = 1;
  return ::setsockopt(socket.native_handle(), SOL_TCP, TCP_INQ, &on, sizeof on) == 0;
}

reactor_op::status receive_once(int fd, std::span<char> room, bool reports_left, error_code& ec, std::size_t& bytes) {
  iovec iov{room.data(), room.size()};
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (reports_left) {
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
  }
  const ssize_t n = ::recvmsg(fd, &msg, MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    return reactor_op::not_done;
  }
  if (n < 0) {
    ec = error_code(errno, net::error::get_system_category());
    return reactor_op::done;
  }
  if (n == 0) {
    ec = net::error::eof;
    return reactor_op::done;
  }
  ec = {};
  bytes = static_cast<std::size_t>(n);
  return reports_left && bytes_left(msg) == 0 ? reactor_op::done_and_exhausted : reactor_op::done;
}

reactor& reactor_of(net::ip::tcp::socket& socket) {
  return net::use_service<reactor>(net::query(socket.get_executor(), net::execution::context));
}

void start_read_op(reactor& io_reactor, net::ip::tcp::socket& socket, reactor_op* op) {
  io_reactor.start_op(reactor::read_op, socket.native_handle(), SocketInternals::registration(socket), op, false, true);
}

}  // namespace infergate::http
