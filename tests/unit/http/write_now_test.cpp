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
