#include "http/send_batch.hpp"

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "socket_pair.hpp"

namespace infergate::http {
namespace {

namespace net = boost::asio;
using boost::system::error_code;

struct Sent {
  error_code ec;
  std::size_t bytes = 0;
};

class SendBatchTest : public ::testing::Test {
 protected:
  // Runs until `done`, for at most two seconds: a send that never completes fails the test
  // instead of hanging it.
  void run_until(const std::function<bool()>& done) {
    io.restart();
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (!done() && std::chrono::steady_clock::now() < end) {
      io.run_one_for(std::chrono::milliseconds(10));
    }
  }

  // Bytes the peer of `pair.server` has been sent and not read.
  static std::size_t waiting_at_client(SocketPair& pair) {
    error_code ec;
    return pair.client.available(ec);
  }

  net::io_context io;
  SendBatch& batch = SendBatch::install(io);
  SocketPair a{io};
  SocketPair b{io};
  const std::array<net::const_buffer, 2> reply{net::buffer("rep", 3), net::buffer("ly", 2)};
};

TEST_F(SendBatchTest, IsFoundOnTheContextItWasInstalledOn) {
  EXPECT_EQ(SendBatch::find(io), &batch);
  net::io_context other;
  EXPECT_EQ(SendBatch::find(other), nullptr);
}

TEST_F(SendBatchTest, TheSendsOfARoundGoOutAfterItsLastHandler) {
  // Reads waiting on epoll for both connections, then a request on each: one poll finds both.
  std::array<char, 8> room_a{};
  std::array<char, 8> room_b{};
  std::optional<Sent> sent_a;
  std::optional<Sent> sent_b;
  int handlers = 0;
  bool held_in_the_round = false;
  bool first_reply_waited = false;
  auto on_request = [&](SocketPair& pair, std::optional<Sent>& sent) {
    return [&](error_code ec, std::size_t) {
      ASSERT_FALSE(ec);
      held_in_the_round = batch.holding();
      if (++handlers == 2) {  // the other handler's reply must not have gone yet
        first_reply_waited = waiting_at_client(a) == 0 && waiting_at_client(b) == 0;
      }
      batch.async_send(pair.server, reply, [&sent](error_code e, std::size_t n) { sent = Sent{e, n}; });
    };
  };
  a.server.async_read_some(net::buffer(room_a), on_request(a, sent_a));
  b.server.async_read_some(net::buffer(room_b), on_request(b, sent_b));
  io.poll();
  ASSERT_EQ(handlers, 0);
  net::write(a.client, net::buffer("q", 1));
  net::write(b.client, net::buffer("q", 1));
  run_until([&] { return sent_a && sent_b; });
  ASSERT_TRUE(sent_a && sent_b);
  EXPECT_TRUE(held_in_the_round);
  EXPECT_TRUE(first_reply_waited);
  EXPECT_EQ(sent_a->bytes, 5U);
  EXPECT_EQ(sent_b->bytes, 5U);
  std::array<char, 5> got{};
  net::read(a.client, net::buffer(got));
  EXPECT_EQ(std::string(got.data(), got.size()), "reply");
  net::read(b.client, net::buffer(got));
  EXPECT_EQ(std::string(got.data(), got.size()), "reply");
}

TEST_F(SendBatchTest, ARoundOfOneDoesNotHold) {
  std::array<char, 8> room{};
  std::optional<bool> held;
  a.server.async_read_some(net::buffer(room), [&](error_code, std::size_t) { held = batch.holding(); });
  io.poll();
  net::write(a.client, net::buffer("q", 1));
  run_until([&] { return held.has_value(); });
  ASSERT_TRUE(held.has_value());
  EXPECT_FALSE(*held);
}

TEST_F(SendBatchTest, ASendOnASocketClosedBeforeTheRoundEndsIsAbortedAndSendsNothing) {
  // The gateway closes an upstream connection whose client left, possibly with its request
  // held; by the end of the round its descriptor may belong to another connection.
  std::optional<Sent> sent;
  net::post(io, [&] {
    batch.async_send(a.server, reply, [&](error_code e, std::size_t n) { sent = Sent{e, n}; });
    a.server.close();
  });
  run_until([&] { return sent.has_value(); });
  ASSERT_TRUE(sent);
  EXPECT_EQ(sent->ec, net::error::operation_aborted);
  EXPECT_EQ(sent->bytes, 0U);
  std::array<char, 8> room{};
  error_code ec;
  const std::size_t n = a.client.read_some(net::buffer(room), ec);
  EXPECT_EQ(ec, net::error::eof);
  EXPECT_EQ(n, 0U);
}

TEST_F(SendBatchTest, HandlersThatSendAgainAndAgainDoNotKeepEpollUnpolled) {
  // Each completed send holds the next one; a read whose data is already there must still
  // complete within a few rounds.
  int sends = 0;
  std::optional<int> sends_when_read;
  std::function<void(error_code, std::size_t)> again = [&](error_code ec, std::size_t) {
    if (!ec && ++sends < 1000 && !sends_when_read) {
      batch.async_send(a.server, reply, again);
    }
  };
  std::array<char, 8> room{};
  b.server.async_read_some(net::buffer(room), [&](error_code, std::size_t) { sends_when_read = sends; });
  io.poll();
  net::write(b.client, net::buffer("q", 1));
  batch.async_send(a.server, reply, again);
  run_until([&] { return sends_when_read.has_value(); });
  ASSERT_TRUE(sends_when_read.has_value());
  EXPECT_LE(*sends_when_read, 3);
}

TEST_F(SendBatchTest, EightHeldSendsGoOutWithoutWaitingForTheRoundsEnd) {
  std::size_t waiting_after_seven = 0;
  std::size_t waiting_after_eight = 0;
  int completed = 0;
  const auto send = [&] {
    batch.async_send(a.server, reply, [&](error_code ec, std::size_t) { completed += ec ? 0 : 1; });
  };
  net::post(io, [&] {
    for (int i = 0; i < 7; ++i) {
      send();
    }
    waiting_after_seven = waiting_at_client(a);
    send();
    waiting_after_eight = waiting_at_client(a);
  });
  run_until([&] { return completed == 8; });
  EXPECT_EQ(waiting_after_seven, 0U);
  EXPECT_EQ(waiting_after_eight, 8 * 5U);
  EXPECT_EQ(completed, 8);
}

TEST_F(SendBatchTest, BusyPollingStopsAfterLongSleepsAndComesBackAfterShortOnes) {
  const auto wait = [&](std::chrono::microseconds how_long) {
    net::steady_timer timer(io, how_long);
    bool fired = false;
    timer.async_wait([&](error_code) { fired = true; });
    run_until([&] { return fired; });
  };
  batch.busy_poll(std::chrono::milliseconds(2));
  EXPECT_EQ(batch.busy_poll().next_wait(), std::chrono::milliseconds(2));
  for (int i = 0; i < 12; ++i) {  // halved each time: 2 ms is under 2^11 µs
    wait(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(batch.busy_poll().next_wait(), std::chrono::nanoseconds(0));
  for (int i = 0; i < 20; ++i) {
    wait(std::chrono::microseconds(100));
  }
  // Doubled until a wait caught the timer (about 256 µs), from then on with nothing to adapt to.
  EXPECT_GT(batch.busy_poll().next_wait(), std::chrono::nanoseconds(0));
  EXPECT_LE(batch.busy_poll().next_wait(), std::chrono::milliseconds(2));
}

TEST_F(SendBatchTest, AHandlerPostedFromAnotherThreadEndsTheWaitAtOnce) {
  batch.busy_poll(std::chrono::seconds(2));
  std::atomic<std::int64_t> posted_ns{0};
  std::int64_t ran_ns = 0;
  std::thread other([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // into the wait
    posted_ns = std::chrono::steady_clock::now().time_since_epoch().count();
    net::post(io, [&] { ran_ns = std::chrono::steady_clock::now().time_since_epoch().count(); });
  });
  auto work = net::make_work_guard(io);
  io.run_one_for(std::chrono::seconds(5));
  other.join();
  ASSERT_NE(ran_ns, 0);
  EXPECT_LT(std::chrono::nanoseconds(ran_ns - posted_ns), std::chrono::seconds(1))
      << "the handler waited for the wait's end";
}

TEST(SendBatch, SendsHeldWhenTheContextGoesAwayAreFreedWithoutRunning) {
  auto token = std::make_shared<int>(0);
  bool ran = false;
  {
    net::io_context io;
    SendBatch& batch = SendBatch::install(io);
    SocketPair pair{io};
    const std::array<net::const_buffer, 1> what{net::buffer("x", 1)};
    batch.async_send(pair.server, what, [token, &ran](error_code, std::size_t) { ran = true; });
    EXPECT_EQ(token.use_count(), 2);
  }
  EXPECT_FALSE(ran);
  EXPECT_EQ(token.use_count(), 1);
}

}  // namespace
}  // namespace infergate::http
