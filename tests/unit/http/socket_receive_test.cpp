#include "http/socket_receive.hpp"

#include <gtest/gtest.h>

#include <poll.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "socket_pair.hpp"

namespace infergate::http {
namespace {

namespace net = boost::asio;
using boost::system::error_code;
using net::detail::reactor_op;
using net::ip::tcp;

struct Result {
  error_code ec;
  std::size_t bytes = 0;
};

// A receive on the server end of a loopback connection, and what it completed with.
class SocketReceiveTest : public ::testing::Test {
 protected:
  void receive() {
    result.reset();
    async_receive_some(reactor_of(pair.server), pair.server, room, [this](error_code ec, std::size_t bytes) {
      result = Result{ec, bytes};
    });
  }

  // Runs until the receive completes, for at most two seconds: a receive that never completes
  // fails the test instead of hanging it.
  void run_until_done() {
    io.restart();
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (!result && std::chrono::steady_clock::now() < end) {
      io.run_one_for(std::chrono::milliseconds(10));
    }
  }

  // The pending read completes with `bytes` bytes, and the next one with the end of stream.
  void expect_bytes_then_end(std::size_t bytes) {
    run_until_done();
    ASSERT_TRUE(result);
    EXPECT_EQ(result->bytes, bytes);
    receive();
    run_until_done();
    ASSERT_TRUE(result);
    EXPECT_EQ(result->ec, net::error::eof);
  }

  // Runs the reactor for a while with no read pending, so that it takes in what epoll reports.
  void let_epoll_report() {
    net::steady_timer timer(io, std::chrono::milliseconds(20));
    timer.async_wait([](error_code) {});
    io.restart();
    io.run();
  }

  // Waits (without the reactor) until the server end has something to receive.
  void wait_readable() {
    pollfd p{pair.server.native_handle(), POLLIN, 0};
    ASSERT_EQ(::poll(&p, 1, 2000), 1);
  }

  reactor_op::status receive_directly(std::size_t& bytes) {
    error_code ec;
    const reactor_op::status status =
        receive_once(pair.server.native_handle(), room, registration_of(pair.server), ec, bytes);
    EXPECT_FALSE(ec);
    return status;
  }

  net::io_context io;
  SocketPair pair{io};
  bool watching = watch_peer_close(reactor_of(pair.server), pair.server);
  std::array<char, 16> room{};
  std::optional<Result> result;
};

TEST_F(SocketReceiveTest, EpollWatchesThePeerCloseOnLoopback) {
  EXPECT_TRUE(watching);
}

TEST_F(SocketReceiveTest, AShortReceiveReportsTheSocketEmptied) {
  net::write(pair.client, net::buffer("abc", 3));
  wait_readable();
  std::size_t bytes = 0;
  EXPECT_EQ(receive_directly(bytes), reactor_op::done_and_exhausted);
  EXPECT_EQ(bytes, 3u);
}

TEST_F(SocketReceiveTest, AFullReceiveDoesNotReportTheSocketEmptied) {
  net::write(pair.client, net::buffer("0123456789abcdef", 16));
  wait_readable();
  std::size_t bytes = 0;
  EXPECT_EQ(receive_directly(bytes), reactor_op::done);
  EXPECT_EQ(bytes, room.size());
}

TEST_F(SocketReceiveTest, AShortReceiveWithAnEndReportedBehindItDoesNotReportTheSocketEmptied) {
  net::write(pair.client, net::buffer("abc", 3));
  pair.client.shutdown(tcp::socket::shutdown_send);
  let_epoll_report();
  std::size_t bytes = 0;
  EXPECT_EQ(receive_directly(bytes), reactor_op::done);
  EXPECT_EQ(bytes, 3u);
}

TEST(SocketReceive, ARegistrationReusedAfterAnEndOfStreamReportsTheNewSocketEmptied) {
  // Asio hands a closed socket's registration to the next socket registered, with what epoll last
  // reported for the old one; the new one's first short receive must not take that end as its own.
  net::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  tcp::socket first_client(io);
  tcp::socket first(io);
  first_client.connect(acceptor.local_endpoint());
  acceptor.accept(first);
  ASSERT_TRUE(watch_peer_close(reactor_of(first), first));
  first_client.shutdown(tcp::socket::shutdown_send);
  net::steady_timer timer(io, std::chrono::milliseconds(20));
  timer.async_wait([](error_code) {});
  io.run();  // the reactor takes in the end of stream
  tcp::socket second_client(io);
  second_client.connect(acceptor.local_endpoint());
  const Registration reused = registration_of(first);
  first.close();
  tcp::socket second(io);
  acceptor.accept(second);
  ASSERT_EQ(registration_of(second), reused);  // Asio's pool of registrations is last in, first out
  ASSERT_TRUE(watch_peer_close(reactor_of(second), second));
  net::write(second_client, net::buffer("abc", 3));
  pollfd p{second.native_handle(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 2000), 1);
  std::array<char, 16> room{};
  error_code ec;
  std::size_t bytes = 0;
  EXPECT_EQ(receive_once(second.native_handle(), room, registration_of(second), ec, bytes),
            reactor_op::done_and_exhausted);
  EXPECT_EQ(bytes, 3u);
}

TEST(SocketReceive, ASocketWhosePeerCloseIsNotWatchedIsNeverReportedEmptied) {
  net::io_context io;
  SocketPair pair(io);
  net::write(pair.client, net::buffer("abc", 3));
  pollfd p{pair.server.native_handle(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 2000), 1);
  std::array<char, 16> room{};
  error_code ec;
  std::size_t bytes = 0;
  EXPECT_EQ(receive_once(pair.server.native_handle(), room, registration_of(pair.server), ec, bytes), reactor_op::done);
  EXPECT_EQ(bytes, 3u);
}

TEST_F(SocketReceiveTest, ReceivesWhatArrives) {
  receive();
  net::write(pair.client, net::buffer("abc", 3));
  run_until_done();
  ASSERT_TRUE(result);
  EXPECT_FALSE(result->ec);
  EXPECT_EQ(std::string_view(room.data(), result->bytes), "abc");
}

TEST_F(SocketReceiveTest, MoreThanTheRoomIsReceivedByTheNextRead) {
  net::write(pair.client, net::buffer("0123456789abcdefXYZ", 19));
  receive();
  run_until_done();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->bytes, room.size());
  receive();
  run_until_done();
  ASSERT_TRUE(result);
  EXPECT_EQ(std::string_view(room.data(), result->bytes), "XYZ");
}

TEST_F(SocketReceiveTest, AReadAfterTheSocketWasEmptiedGetsWhatComesLater) {
  // The first receive empties the socket: the next read waits for epoll to report more, and
  // what comes while no read is pending is reported to it as well.
  receive();
  net::write(pair.client, net::buffer("a", 1));
  run_until_done();
  ASSERT_TRUE(result);
  net::write(pair.client, net::buffer("bc", 2));
  io.restart();
  io.run_for(std::chrono::milliseconds(20));
  receive();
  run_until_done();
  ASSERT_TRUE(result);
  EXPECT_EQ(std::string_view(room.data(), result->bytes), "bc");
}

TEST_F(SocketReceiveTest, AnEndOfStreamBehindTheLastBytesIsReported) {
  receive();
  net::write(pair.client, net::buffer("abc", 3));
  pair.client.shutdown(tcp::socket::shutdown_send);
  expect_bytes_then_end(3);
}

TEST_F(SocketReceiveTest, AnEndOfStreamThatCameWithTheBytesBeforeTheReadIsReported) {
  // Epoll reported both before any read was pending: no further event will come for the end.
  net::write(pair.client, net::buffer("abc", 3));
  pair.client.shutdown(tcp::socket::shutdown_send);
  let_epoll_report();
  receive();
  expect_bytes_then_end(3);
}

TEST_F(SocketReceiveTest, AnEndOfStreamAfterTheSocketWasEmptiedIsReported) {
  net::write(pair.client, net::buffer("abc", 3));
  receive();
  run_until_done();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->bytes, 3u);
  receive();
  io.restart();
  io.run_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(result);
  pair.client.shutdown(tcp::socket::shutdown_send);
  run_until_done();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->ec, net::error::eof);
}

TEST_F(SocketReceiveTest, ClosingTheSocketAbortsAPendingRead) {
  receive();
  pair.server.close();
  run_until_done();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->ec, net::error::operation_aborted);
}

TEST(SocketReceive, APendingReadIsFreedWithItsIoContextWithoutCompleting) {
  auto held = std::make_shared<int>(0);
  bool called = false;
  std::array<char, 16> room{};
  {
    net::io_context io;
    SocketPair pair(io);
    watch_peer_close(reactor_of(pair.server), pair.server);
    async_receive_some(reactor_of(pair.server), pair.server, room,
                       [held, &called](error_code, std::size_t) { called = true; });
    io.poll();
    EXPECT_EQ(held.use_count(), 2);
  }
  EXPECT_FALSE(called);
  EXPECT_EQ(held.use_count(), 1);
}

}  // namespace
}  // namespace infergate::http
