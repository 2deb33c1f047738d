#include "http/write_now.hpp"

#include <sys/socket.h>
#include <sys/uio.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstring>

namespace infergate::http {

namespace net = boost::asio;

namespace {

// One non-blocking send of `iov`: send() for one piece, sendmsg() for more.
ssize_t send_pieces(int fd, std::span<iovec> iov) {
  constexpr int kFlags = MSG_NOSIGNAL | MSG_DONTWAIT;
  if (iov.size() == 1) {
    return ::send(fd, iov[0].iov_base, iov[0].iov_len, kFlags);
  }
  msghdr message{};
  message.msg_iov = iov.data();
  message.msg_iovlen = iov.size();
  return ::sendmsg(fd, &message, kFlags);
}

}  // namespace

std::size_t send_some(int fd, std::span<const net::const_buffer> buffers, boost::system::error_code& ec) {
  // Past this many pieces the rest goes in the asynchronous write that follows.
  constexpr std::size_t kMaxPieces = 64;
  std::array<iovec, kMaxPieces> iov;  // NOLINT(cppcoreguidelines-pro-type-member-init): the first `count` are set
  std::size_t count = 0;
  std::size_t total = 0;
  for (const net::const_buffer& b : buffers) {
    if (count == iov.size()) {
      break;
    }
    if (b.size() != 0) {
      // sendmsg only reads from its iovecs.
      iov[count++] = iovec{const_cast<void*>(b.data()), b.size()};  // NOLINT(cppcoreguidelines-pro-type-const-cast)
      total += b.size();
    }
  }
  if (count == 0) {
    return 0;
  }
  std::array<char, kGatherBytes> gathered;  // NOLINT(cppcoreguidelines-pro-type-member-init): written before sent
  if (count > 1 && total <= gathered.size()) {
    char* at = gathered.data();
    for (const iovec& piece : std::span(iov).first(count)) {
      std::memcpy(at, piece.iov_base, piece.iov_len);
      at += piece.iov_len;
    }
    iov[0] = iovec{gathered.data(), total};
    count = 1;
  }
  for (;;) {
    const ssize_t sent = send_pieces(fd, std::span(iov).first(count));
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
