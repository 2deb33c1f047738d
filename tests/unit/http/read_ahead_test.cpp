#include "http/read_ahead.hpp"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <chrono>
#include <optional>
#include <string_view>

#include "socket_pair.hpp"

namespace infergate::http {
namespace {

namespace net = boost::asio;
using net::ip::tcp;

// Runs `io` until `done` holds (or there is nothing left to run).
template <class Done>
void run_until(net::io_context& io, Done done) {
  io.restart();
  while (!done() && io.run_one() != 0) {
  }
}

// Runs `io` for `time`: what the reactor reports meanwhile is handled, whether a read waits or not.
void run_for(net::io_context& io, std::chrono::milliseconds time) {
  io.restart();
  io.run_for(time);
}

// As run_until(), but for no longer than `limit`: a read that never completes fails the test
// instead of hanging it.
template <class Done>
void run_until_within(net::io_context& io, Done done, std::chrono::milliseconds limit) {
  io.restart();
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done() && std::chrono::steady_clock::now() < end) {
    io.run_one_for(std::chrono::milliseconds(10));
  }
}

// Runs what is ready to run, without waiting for a read.
void run_ready(net::io_context& io) {
  io.restart();
  io.poll();
}

// A read ahead started on the server end of a loopback connection.
class ReadAheadTest : public ::testing::Test {
 protected:
  void SetUp() override { ahead.start(pair.server, room); }

  net::io_context io;
  SocketPair pair{io};
  std::array<char, 16> room{};
  ReadAhead ahead;
};

TEST_F(ReadAheadTest, BytesThatArriveWhileNobodyWaitsAreKeptForTheSession) {
  EXPECT_TRUE(ahead.pending());
  net::write(pair.client, net::buffer("GET", 3));
  run_until(io, [&] { return !ahead.pending(); });
  ASSERT_TRUE(ahead.arrived());
  EXPECT_FALSE(ahead.error());
  EXPECT_EQ(ahead.take(), 3u);
  EXPECT_FALSE(ahead.arrived());
  EXPECT_EQ(std::string_view(room.data(), 3), "GET");
}

TEST_F(ReadAheadTest, ASessionWaitingForItIsResumedWithItsResult) {
  std::optional<std::size_t> got;
  net::co_spawn(
      io,
      [&]() -> net::awaitable<void> {
        const auto [ec, n] = co_await ahead.wait();
        EXPECT_FALSE(ec);
        got = n;
      },
      net::detached);
  run_ready(io);  // the session now waits
  EXPECT_FALSE(got);
  net::write(pair.client, net::buffer("POST", 4));
  run_until(io, [&] { return got.has_value(); });
  EXPECT_EQ(got, 4u);
  EXPECT_FALSE(ahead.arrived());  // handed to the session, not kept
}

TEST_F(ReadAheadTest, AClientThatLeavesWhileAHandlerWatchesCallsItsOnCloseOnce) {
  int calls = 0;
  ahead.watch([&] { ++calls; }, io.get_executor());
  pair.client.close();
  run_until(io, [&] { return !ahead.pending(); });
  EXPECT_EQ(calls, 1);
  ASSERT_TRUE(ahead.arrived());
  EXPECT_EQ(ahead.error(), net::error::eof);
}

TEST_F(ReadAheadTest, NoCallAfterTheHandlerStopsWatchingNorWhenTheClientSendsMore) {
  int calls = 0;
  ahead.watch([&] { ++calls; }, io.get_executor());
  net::write(pair.client, net::buffer("x", 1));  // the next request: the client is still there
  run_until(io, [&] { return !ahead.pending(); });
  EXPECT_EQ(calls, 0);
  ReadAhead next;
  next.start(pair.server, room);
  next.watch([&] { ++calls; }, io.get_executor());
  next.stop_watching();
  pair.client.close();
  run_until(io, [&] { return !next.pending(); });
  EXPECT_EQ(calls, 0);
}

TEST_F(ReadAheadTest, AClientGoneBeforeTheHandlerWatchesIsReportedAtOnce) {
  pair.client.close();
  run_until(io, [&] { return !ahead.pending(); });
  int calls = 0;
  ahead.watch([&] { ++calls; }, io.get_executor());
  run_until(io, [&] { return calls != 0; });
  EXPECT_EQ(calls, 1);
}

TEST_F(ReadAheadTest, AnEndOfStreamThatCameWithTheLastBytesIsReportedNotAwaited) {
  // Epoll reports the socket readable to the pending read, whose receive takes the bytes and
  // leaves only the end of stream: no further readiness will be reported, so a next read that
  // waited for it would wait forever. TCP_INQ counts the pending end of stream, and the next read
  // receives at once.
  net::write(pair.client, net::buffer("GET", 3));
  pair.client.shutdown(tcp::socket::shutdown_send);
  run_until_within(
      io, [&] { return !ahead.pending(); }, std::chrono::seconds(2));
  ASSERT_TRUE(ahead.arrived());
  EXPECT_EQ(ahead.take(), 3u);
  ahead.start(pair.server, room);
  run_until_within(
      io, [&] { return !ahead.pending(); }, std::chrono::seconds(2));
  ASSERT_TRUE(ahead.arrived());
  EXPECT_EQ(ahead.error(), net::error::eof);
}

TEST_F(ReadAheadTest, BytesThatComeWhileNoReadIsPendingAreNotMissed) {
  // The first read leaves the socket empty, so the next one waits for readiness; the next
  // request's readiness is reported while no read is pending (its handler works) and must still
  // reach that read.
  net::write(pair.client, net::buffer("a", 1));
  run_until(io, [&] { return !ahead.pending(); });
  ASSERT_EQ(ahead.take(), 1u);
  net::write(pair.client, net::buffer("bc", 2));
  run_for(io, std::chrono::milliseconds(20));
  ahead.start(pair.server, room);
  run_until_within(
      io, [&] { return !ahead.pending(); }, std::chrono::seconds(2));
  ASSERT_TRUE(ahead.arrived());
  EXPECT_EQ(ahead.take(), 2u);
  EXPECT_EQ(std::string_view(room.data(), 2), "bc");
}

TEST(ReadAhead, ASessionStillWaitingWhenItsIoContextGoesIsFreedWithIt) {
  // The waiting session holds the read's state; the read's handler holds the session. Destroyed
  // without completing, the handler must let the session go (the sanitizer build's leak check
  // fails otherwise).
  std::array<char, 16> room{};
  bool resumed = false;
  {
    net::io_context io;
    SocketPair pair(io);
    auto ahead = std::make_shared<ReadAhead>();
    ahead->start(pair.server, room);
    net::co_spawn(
        io,
        [ahead, &resumed]() -> net::awaitable<void> {
          co_await ahead->wait();
          resumed = true;
        },
        net::detached);
    run_ready(io);
  }
  EXPECT_FALSE(resumed);
}

}  // namespace
}  // namespace infergate::http
