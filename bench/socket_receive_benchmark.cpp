// What one non-blocking receive costs on loopback, system call included: the gateway's
// receive_once (a recv(), then a look at what epoll last reported for the socket, so that a read
// can wait for readiness instead of failing a receive) against the recvmsg() that asked TCP_INQ
// what the socket held after it (the gateway's receive until 2026-12-05), and against the bare
// recv() that haproxy and nginx make. A chat request as the client sends it, and a 68-event
// stream as the upstream answers it. The sender's send is not timed; each receive finds the whole
// message waiting. The three run in rotating order, rounds apart; medians are printed with the
// ratio of ours to recv().
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "http/socket_receive.hpp"
#include "loopback_pair.hpp"

namespace {

namespace net = boost::asio;

using Pair = infergate::microbench::LoopbackPair;

using Receive = std::function<std::size_t(std::span<char>)>;

// Nanoseconds per receive of `message`, the receive alone, over `count` messages.
double ns_per_receive(Pair& pair, const std::string& message, int count, const Receive& receive) {
  std::vector<char> room(std::size_t{16} << 10);
  std::chrono::nanoseconds spent{0};
  for (int i = 0; i < count; ++i) {
    if (::send(pair.sender.native_handle(), message.data(), message.size(), 0) !=
        static_cast<ssize_t>(message.size())) {
      std::perror("send");
      std::exit(1);
    }
    const auto start = std::chrono::steady_clock::now();
    const std::size_t got = receive(room);
    spent += std::chrono::steady_clock::now() - start;
    if (got != message.size()) {
      std::fprintf(stderr, "received %zu of %zu\n", got, message.size());
      std::exit(1);
    }
  }
  return static_cast<double>(spent.count()) / count;
}

// The median ns per receive of each of `receives`, run in rotating order round after round.
std::vector<double> compare(Pair& pair, const std::string& message, const std::vector<Receive>& receives) {
  constexpr int kRounds = 9;
  constexpr int kReceives = 20'000;
  std::vector<std::vector<double>> rounds(receives.size());
  for (int round = 0; round < kRounds; ++round) {
    for (std::size_t k = 0; k < receives.size(); ++k) {
      const std::size_t which = (k + static_cast<std::size_t>(round)) % receives.size();
      rounds[which].push_back(ns_per_receive(pair, message, kReceives, receives[which]));
    }
  }
  std::vector<double> medians;
  for (auto& r : rounds) {
    std::sort(r.begin(), r.end());
    medians.push_back(r[r.size() / 2]);
  }
  return medians;
}

// The receive the gateway made before: recvmsg() asking TCP_INQ what is left after it.
std::size_t receive_asking_what_is_left(int fd, std::span<char> room) {
  iovec iov{room.data(), room.size()};
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  const ssize_t n = ::recvmsg(fd, &msg, MSG_DONTWAIT);
  return n < 0 ? 0 : static_cast<std::size_t>(n);
}

}  // namespace

int main() {
  net::io_context io;
  Pair pair(io);
  const int fd = pair.receiver.native_handle();
  const int on = 1;
  if (!infergate::http::watch_peer_close(infergate::http::reactor_of(pair.receiver), pair.receiver) ||
      ::setsockopt(fd, SOL_TCP, TCP_INQ, &on, sizeof on) != 0) {
    std::fprintf(stderr, "this kernel has no EPOLLRDHUP or no TCP_INQ\n");
    return 1;
  }
  const infergate::http::Registration registration = infergate::http::registration_of(pair.receiver);
  const Receive ours = [fd, registration](std::span<char> room) {
    boost::system::error_code ec;
    std::size_t bytes = 0;
    infergate::http::receive_once(fd, room, registration, ec, bytes);
    return ec ? 0 : bytes;
  };
  const Receive asking = [fd](std::span<char> room) { return receive_asking_what_is_left(fd, room); };
  const Receive plain_recv = [fd](std::span<char> room) {
    const ssize_t n = ::recv(fd, room.data(), room.size(), MSG_DONTWAIT);
    return n < 0 ? 0 : static_cast<std::size_t>(n);
  };
  struct Case {
    const char* name;
    std::size_t bytes;
  };
  const std::array<Case, 2> cases{
      {{"a chat request (head 300, body 700)", 1000}, {"a 68-event stream (13 kB)", 13'300}}};
  std::printf("%-38s %8s %16s %8s %14s %14s\n", "message", "ours ns", "recvmsg+INQ ns", "recv ns", "ours / recv",
              "INQ / recv");
  for (const Case& c : cases) {
    const std::string message(c.bytes, 'x');
    const std::vector<double> ns = compare(pair, message, {ours, asking, plain_recv});
    std::printf("%-38s %8.0f %16.0f %8.0f %14.2f %14.2f\n", c.name, ns[0], ns[1], ns[2], ns[0] / ns[2], ns[1] / ns[2]);
  }
}
