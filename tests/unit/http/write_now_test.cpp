#include "http/write_now.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>

#include <array>
#include <string>
#include <vector>

#include "socket_pair.hpp"

namespace infergate::http {
namespace {

namespace net = boost::asio;

TEST(WriteNow, SendsEveryPieceInOrderWhenTheSocketTakesThem) {
  net::io_context io;
  SocketPair pair(io);
  std::array<net::const_buffer, 4> buffers{net::buffer("HTTP/1.1 ", 9), net::const_buffer(), net::buffer("200", 3),
                                           net::buffer(" OK\r\n", 5)};
  boost::system::error_code ec;
  const auto left = write_now(pair.server, buffers, ec);
  EXPECT_FALSE(ec);
  EXPECT_TRUE(left.empty());
  std::string got(17, '\0');
  net::read(pair.client, net::buffer(got));
  EXPECT_EQ(got, "HTTP/1.1 200 OK\r\n");
}

// Pieces are copied together up to kGatherBytes and gathered by the kernel beyond: both ways
// must send every byte once, in order, and say how many went.
TEST(WriteNow, SendsPiecesWholeOnEitherSideOfTheCopyLimit) {
  for (const std::size_t total : {std::size_t{1}, kGatherBytes - 1, kGatherBytes, kGatherBytes + 1, 3 * kGatherBytes}) {
    net::io_context io;
    SocketPair pair(io);
    std::string text(total, '\0');
    for (std::size_t i = 0; i < total; ++i) {
      text[i] = static_cast<char>('a' + i % 23);
    }
    // Three pieces of uneven sizes, and an empty one, which is skipped.
    const std::size_t first = total / 3;
    const std::size_t second = total / 2;
    std::array<net::const_buffer, 4> buffers{net::buffer(text.data(), first), net::const_buffer(),
                                             net::buffer(text.data() + first, second - first),
                                             net::buffer(text.data() + second, total - second)};
    boost::system::error_code ec;
    EXPECT_EQ(send_some(pair.server.native_handle(), buffers, ec), total) << total;
    EXPECT_FALSE(ec);
    std::string got(total, '\0');
    net::read(pair.client, net::buffer(got));
    EXPECT_EQ(got, text) << total;
  }
}

TEST(WriteNow, SendsOnePieceAsItIs) {
  net::io_context io;
  SocketPair pair(io);
  const std::string text(5000, 'x');
  std::array<net::const_buffer, 2> buffers{net::const_buffer(), net::buffer(text)};
  boost::system::error_code ec;
  EXPECT_TRUE(write_now(pair.server, buffers, ec).empty());
  EXPECT_FALSE(ec);
  std::string got(text.size(), '\0');
  net::read(pair.client, net::buffer(got));
  EXPECT_EQ(got, text);
}

TEST(WriteNow, WhatIsLeftStartsAtTheFirstByteNotSent) {
  const std::string text = "abcdefghijkl";
  const auto pieces = [&] {
    return std::array<net::const_buffer, 4>{net::buffer(text.data(), 3), net::const_buffer(),
                                            net::buffer(text.data() + 3, 5), net::buffer(text.data() + 8, 4)};
  };
  const auto joined = [](std::span<const net::const_buffer> left) {
    std::string out;
    for (const auto& b : left) {
      EXPECT_NE(b.size(), 0u);
      out.append(static_cast<const char*>(b.data()), b.size());
    }
    return out;
  };
  for (std::size_t sent = 0; sent <= text.size(); ++sent) {
    auto buffers = pieces();
    const auto left = drop_sent(buffers, sent);
    EXPECT_EQ(joined(left), text.substr(sent)) << sent;
    if (!left.empty()) {
      EXPECT_EQ(left[0].data(), text.data() + sent) << sent;  // a view of the caller's bytes, not a copy
    }
  }
}

TEST(WriteNow, LeavesWhatAFullSocketCannotTakeWithoutWaiting) {
  net::io_context io;
  SocketPair pair(io);
  // Far more than the socket and its peer buffer, which nobody reads meanwhile.
  const std::string head(100, 'h');
  const std::string body(std::size_t{64} << 20, 'b');
  std::array<net::const_buffer, 2> buffers{net::buffer(head), net::buffer(body)};
  boost::system::error_code ec;
  const auto left = write_now(pair.server, buffers, ec);
  EXPECT_FALSE(ec);
  ASSERT_EQ(left.size(), 1u);  // the head went whole; the body only in part
  const auto sent = body.size() - left[0].size();
  EXPECT_GT(sent, 0u);
  EXPECT_EQ(static_cast<const char*>(left[0].data()), body.data() + sent);

  // Full now: nothing more goes, and that is not an error.
  const auto again = write_now(pair.server, left, ec);
  EXPECT_FALSE(ec);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].size(), left[0].size());
}

TEST(WriteNow, ReportsAConnectionThePeerHasReset) {
  net::io_context io;
  SocketPair pair(io);
  pair.client.set_option(net::socket_base::linger(true, 0));
  pair.client.close();  // sends RST
  std::array<net::const_buffer, 1> buffers{net::buffer("data", 4)};
  boost::system::error_code ec;
  // The first send may still be accepted before the reset is seen.
  for (int i = 0; i < 2 && !ec; ++i) {
    (void)write_now(pair.server, buffers, ec);
  }
  EXPECT_TRUE(ec);
}

}  // namespace
}  // namespace infergate::http
