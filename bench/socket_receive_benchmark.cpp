// What one non-blocking receive costs on loopback, system call included: the gateway's
// receive_once (a recvmsg that asks TCP_INQ what the socket holds after it, so that a read can
// wait for readiness instead of failing a receive) against the same recvmsg without the question,
// and against the recv() that haproxy and nginx make (they learn of a pending end of stream from
// epoll's EPOLLRDHUP instead, which Asio's reactor does not ask for). A chat request as the
// client sends it, and a 68-event stream as the upstream answers it. The sender's send is not
// timed; each receive finds the whole message waiting. The three run in rotating order, rounds
// apart; medians are printed with the ratio of ours to recv().
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

}  // namespace

int main() {
  net::io_context io;
  Pair pair(io);
  const int fd = pair.receiver.native_handle();
  if (!infergate::http::report_bytes_left(pair.receiver)) {
    std::fprintf(stderr, "this kernel has no TCP_INQ\n");
    return 1;
  }
  const auto ours = [fd](bool reports_left) {
    return [fd, reports_left](std::span<char> room) {
      boost::system::error_code ec;
      std::size_t bytes = 0;
      infergate::http::receive_once(fd, room, reports_left, ec, bytes);
      return ec ? 0 : bytes;
    };
  };
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
  std::printf("%-38s %16s %12s %8s %14s\n", "message", "recvmsg+INQ ns", "recvmsg ns", "recv ns", "ours / recv");
  for (const Case& c : cases) {
    const std::string message(c.bytes, 'x');
    const std::vector<double> ns = compare(pair, message, {ours(true), ours(false), plain_recv});
    std::printf("%-38s %16.0f %12.0f %8.0f %14.2f\n", c.name, ns[0], ns[1], ns[2], ns[0] / ns[2]);
  }
}
