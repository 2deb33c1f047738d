// What one non-blocking send of a few pieces costs on loopback, system call included: the
// gateway's send_some (pieces of up to kGatherBytes copied into one buffer and sent with send())
// against one sendmsg gathering the same pieces, as Asio and the gateway did before. A typical
// answer (a head and a 700-byte body), a request in three pieces, and larger sizes around the
// copy limit. Then the framing of a streamed answer sent whole (a 68-event stream, its usage event
// cut out): the gateway's four pieces (head with the size line, two body pieces, the chunk's end
// with the terminating chunk) against the six it sent before, and against one contiguous buffer.
// The receiver drains each send before the next, so every send finds the socket empty. Each pair
// runs in alternating rounds; the ratio is printed.
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
#include <utility>
#include <vector>

#include "http/write_now.hpp"
#include "loopback_pair.hpp"

namespace {

namespace net = boost::asio;

using Pair = infergate::microbench::LoopbackPair;

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

// `sizes` as pieces of `source`, 64 bytes apart as the pieces of a real answer are.
std::vector<net::const_buffer> pieces_of(const std::string& source, const std::vector<std::size_t>& sizes) {
  std::vector<net::const_buffer> pieces;
  std::size_t at = 0;
  for (const std::size_t size : sizes) {
    pieces.emplace_back(source.data() + at, size);
    at += size + 64;
  }
  return pieces;
}

std::size_t bytes_in(const std::vector<net::const_buffer>& pieces) {
  std::size_t total = 0;
  for (const auto& piece : pieces) {
    total += piece.size();
  }
  return total;
}

// The median ns per send of `ours` and of `theirs`, each sending `total` bytes, in alternating
// rounds.
template <class Ours, class Theirs>
std::pair<double, double> compare(Pair& pair, std::size_t total, Ours ours, Theirs theirs) {
  constexpr int kRounds = 8;
  constexpr int kSends = 20'000;
  std::vector<double> a;
  std::vector<double> b;
  for (int round = 0; round < kRounds; ++round) {
    if (round % 2 == 0) {
      a.push_back(ns_per_send(pair, total, kSends, ours));
      b.push_back(ns_per_send(pair, total, kSends, theirs));
    } else {
      b.push_back(ns_per_send(pair, total, kSends, theirs));
      a.push_back(ns_per_send(pair, total, kSends, ours));
    }
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return {a[kRounds / 2], b[kRounds / 2]};
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
  std::printf("%-42s %12s %12s %8s\n", "pieces", "send_some ns", "sendmsg ns", "ratio");
  for (const Case& c : cases) {
    const std::vector<net::const_buffer> pieces = pieces_of(source, c.sizes);
    const auto [ours, theirs] = compare(
        pair, bytes_in(pieces),
        [&] {
          boost::system::error_code ec;
          return infergate::http::send_some(fd, pieces, ec);
        },
        [&] { return gathered_sendmsg(fd, pieces); });
    std::printf("%-42s %12.0f %12.0f %8.2f\n", c.name, ours, theirs, ours / theirs);
  }

  // A head of 300 bytes, the size line, 9,500 bytes of events, the usage event cut out, 150 more.
  const std::vector<net::const_buffer> four = pieces_of(source, {306, 9500, 150, 7});
  const std::vector<net::const_buffer> six = pieces_of(source, {300, 6, 9500, 150, 2, 5});
  const std::vector<net::const_buffer> one = pieces_of(source, {9963});
  const auto send_four = [&] {
    boost::system::error_code ec;
    return infergate::http::send_some(fd, four, ec);
  };
  std::printf("\n%-42s %12s %12s %8s\n", "a streamed answer's framing", "ours ns", "other ns", "ratio");
  const auto [ours, before] = compare(pair, bytes_in(four), send_four, [&] { return gathered_sendmsg(fd, six); });
  std::printf("%-42s %12.0f %12.0f %8.2f\n", "4 pieces against the 6 sent before", ours, before, ours / before);
  const auto [again, contiguous] = compare(pair, bytes_in(four), send_four, [&] { return gathered_sendmsg(fd, one); });
  std::printf("%-42s %12.0f %12.0f %8.2f\n", "4 pieces against one contiguous buffer", again, contiguous,
              again / contiguous);
}
