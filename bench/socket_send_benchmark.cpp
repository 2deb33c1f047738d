// What one non-blocking send of a few pieces costs on loopback, system call included: the
// gateway's send_some (pieces of up to kGatherBytes copied into one buffer and sent with send())
// against one sendmsg gathering the same pieces, as Asio and the gateway did before. A typical
// answer (a head and a 700-byte body), a request in three pieces, and larger sizes around the
// copy limit. The receiver drains each send before the next, so every send finds the socket
// empty. Both run in alternating rounds; the ratio is printed.
#include <sys/socket.h>
#include <sys/uio.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "http/write_now.hpp"

namespace {

namespace net = boost::asio;
using net::ip::tcp;

struct Pair {
  explicit Pair(net::io_context& io) : sender(io), receiver(io) {
    tcp::acceptor acceptor(io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
    sender.connect(acceptor.local_endpoint());
    acceptor.accept(receiver);
    sender.set_option(tcp::no_delay(true));
  }
  tcp::socket sender;
  tcp::socket receiver;
};

void drain(int fd, std::size_t bytes, std::vector<char>& room) {
  for (std::size_t got = 0; got < bytes;) {
    const ssize_t n = ::recv(fd, room.data(), room.size(), 0);
    if (n <= 0) {
      std::perror("recv");
      std::exit(1);
    }
    got += static_cast<std::size_t>(n);
  }
}

std::size_t gathered_sendmsg(int fd, const std::vector<net::const_buffer>& pieces) {
  std::array<iovec, 8> iov{};
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    iov[i] = iovec{const_cast<void*>(pieces[i].data()), pieces[i].size()};  // NOLINT: read only
  }
  msghdr message{};
  message.msg_iov = iov.data();
  message.msg_iovlen = pieces.size();
  return static_cast<std::size_t>(::sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT));
}

// Nanoseconds per send (the send alone, not the drain), over `sends` sends.
template <class Send>
double ns_per_send(Pair& pair, std::size_t total, int sends, Send send) {
  std::vector<char> room(std::size_t{1} << 17);
  std::chrono::nanoseconds spent{0};
  for (int i = 0; i < sends; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const std::size_t sent = send();
    spent += std::chrono::steady_clock::now() - start;
    if (sent != total) {
      std::fprintf(stderr, "sent %zu of %zu\n", sent, total);
      std::exit(1);
    }
    drain(pair.receiver.native_handle(), total, room);
  }
  return static_cast<double>(spent.count()) / sends;
}

}  // namespace

int main() {
  net::io_context io;
  Pair pair(io);
  const int fd = pair.sender.native_handle();
  const std::string source(std::size_t{1} << 16, 'x');
  struct Case {
    const char* name;
    std::vector<std::size_t> sizes;
  };
  const std::vector<Case> cases{{"answer: head 250 + body 700", {250, 700}},
                                {"request: head 300 + 3 body pieces (900)", {300, 40, 20, 840}},
                                {"4 kB in 4 pieces", {1000, 1000, 1000, 1000}},
                                {"4 kB in 2 pieces (the copy limit)", {2000, 2096}},
                                {"8 kB in 2 pieces (sendmsg both ways)", {4000, 4192}}};
  constexpr int kRounds = 8;
  constexpr int kSends = 20'000;
  std::printf("%-42s %12s %12s %8s\n", "pieces", "send_some ns", "sendmsg ns", "ratio");
  for (const Case& c : cases) {
    std::vector<net::const_buffer> pieces;
    std::size_t at = 0;
    for (const std::size_t size : c.sizes) {
      pieces.emplace_back(source.data() + at, size);
      at += size + 64;  // apart, as the pieces of a real answer are
    }
    const std::size_t total = at - 64 * c.sizes.size();
    std::vector<double> ours;
    std::vector<double> theirs;
    for (int round = 0; round < kRounds; ++round) {
      const auto run_ours = [&] {
        ours.push_back(ns_per_send(pair, total, kSends, [&] {
          boost::system::error_code ec;
          return infergate::http::send_some(fd, pieces, ec);
        }));
      };
      const auto run_theirs = [&] {
        theirs.push_back(ns_per_send(pair, total, kSends, [&] { return gathered_sendmsg(fd, pieces); }));
      };
      if (round % 2 == 0) {
        run_ours();
        run_theirs();
      } else {
        run_theirs();
        run_ours();
      }
    }
    std::sort(ours.begin(), ours.end());
    std::sort(theirs.begin(), theirs.end());
    const double a = ours[kRounds / 2];
    const double b = theirs[kRounds / 2];
    std::printf("%-42s %12.0f %12.0f %8.2f\n", c.name, a, b, a / b);
  }
}
