#include "http/write_now.hpp"

#include <sys/socket.h>
#include <sys/uio.h>

#include <array>
#include <cerrno>
#include <cstddef>

namespace infergate::http {

namespace net = boost::asio;

std::size_t send_some(int fd, std::span<const net::const_buffer> buffers, boost::system::error_code& ec) {
  // Past this many pieces the rest goes in the asynchronous write that follows.
  constexpr std::size_t kMaxPieces = 64;
  std::array<iovec, kMaxPieces> iov{};
  std::size_t count = 0;
  for (const net::const_buffer& b : buffers) {
    if (count == iov.size()) {
      break;
    }
    if (b.size() != 0) {
      // sendmsg only reads from its iovecs.
      iov[count++] = iovec{const_cast<void*>(b.data()), b.size()};  // NOLINT(cppcoreguidelines-pro-type-const-cast)
    }
  }
  if (count == 0) {
    return 0;
  }
  msghdr message{};
  message.msg_iov = iov.data();
  message.msg_iovlen = count;
  for (;;) {
    const ssize_t sent = ::sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent >= 0) {
      return static_cast<std::size_t>(sent);
    }
    if (errno == EINTR) {
      continue;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      ec = boost::system::error_code(errno, boost::system::system_category());
    }
    return 0;
  }
}

std::span<net::const_buffer> drop_sent(std::span<net::const_buffer> buffers, std::size_t sent) {
  // Compacts what is left to the front: each buffer is read before its slot or a later one is
  // written.
  std::size_t left = 0;
  for (const net::const_buffer b : buffers) {
    if (sent >= b.size()) {
      sent -= b.size();
      continue;
    }
    buffers[left++] = b + sent;
    sent = 0;
  }
  return buffers.first(left);
}

std::span<net::const_buffer> write_now(net::ip::tcp::socket& socket, std::span<net::const_buffer> buffers,
                                       boost::system::error_code& ec) {
  return drop_sent(buffers, send_some(socket.native_handle(), buffers, ec));
}

}  // namespace infergate::http
