#include "http/io_deadline.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <chrono>

#include "socket_pair.hpp"

namespace infergate::http {
namespace {

namespace net = boost::asio;
using net::ip::tcp;
using namespace std::chrono_literals;

// Reads one byte under `deadline`; `result` gets how the read ended.
void read_one(tcp::socket& socket, IoDeadline& deadline, char& byte, boost::system::error_code& result) {
  net::async_read(socket, net::buffer(&byte, 1), [&](boost::system::error_code ec, std::size_t) {
    deadline.end();
    result = ec;
  });
}

TEST(IoDeadline, AReadPastItsDeadlineIsCancelledAndReportedExpired) {
  net::io_context io;
  SocketPair pair(io);
  IoDeadline deadline(pair.client);
  char byte = 0;
  boost::system::error_code result;
  // The deadline counts from begin(), so the clock starts before it: read after, it would miss
  // whatever begin() itself took and the elapsed time could fall a little short of 30 ms.
  const auto started = std::chrono::steady_clock::now();
  deadline.begin(30ms);
  read_one(pair.client, deadline, byte, result);
  io.run_for(5s);
  EXPECT_EQ(result, net::error::operation_aborted);
  EXPECT_TRUE(deadline.expired());
  EXPECT_GE(std::chrono::steady_clock::now() - started, 30ms);
}

TEST(IoDeadline, OperationsThatFinishInTimeAreLeftAloneHoweverLongTheConnectionLives) {
  net::io_context io;
  SocketPair pair(io);
  IoDeadline deadline(pair.client);
  // Each read has 150 ms; the peer answers every 10 ms for 400 ms, well past the first deadline.
  int reads = 0;
  bool failed = false;
  char byte = 0;
  std::function<void()> read_next = [&] {
    deadline.begin(150ms);
    net::async_read(pair.client, net::buffer(&byte, 1), [&](boost::system::error_code ec, std::size_t) {
      deadline.end();
      if (ec) {
        failed = true;
        return;
      }
      if (++reads < 40) {
        read_next();
      }
    });
  };
  read_next();
  net::steady_timer pace(io);
  int sent = 0;
  std::function<void()> send_next = [&] {
    pace.expires_after(10ms);
    pace.async_wait([&](boost::system::error_code) {
      net::write(pair.server, net::buffer("x", 1));
      if (++sent < 40) {
        send_next();
      }
    });
  };
  send_next();
  io.run_for(5s);
  EXPECT_FALSE(failed);
  EXPECT_EQ(reads, 40);
  EXPECT_FALSE(deadline.expired());
}

TEST(IoDeadline, AnIdleConnectionIsNotCancelledAndAShorterDeadlineTakesEffect) {
  net::io_context io;
  SocketPair pair(io);
  IoDeadline deadline(pair.client);
  deadline.begin(10s);
  deadline.end();        // idle from here: the timer still waits for 10 s but must not cancel anything
  deadline.begin(20ms);  // a shorter limit than the one the timer waits for
  char byte = 0;
  boost::system::error_code result;
  read_one(pair.client, deadline, byte, result);
  const auto started = std::chrono::steady_clock::now();
  io.run_for(5s);
  EXPECT_EQ(result, net::error::operation_aborted);
  EXPECT_TRUE(deadline.expired());
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

TEST(IoDeadline, ADisarmedConnectionLeavesNothingForItsIoContextToWaitFor) {
  net::io_context io;
  SocketPair pair(io);
  IoDeadline deadline(pair.client);
  deadline.begin(std::chrono::minutes(10));
  deadline.end();
  deadline.disarm();
  const auto started = std::chrono::steady_clock::now();
  io.run();  // returns at once: no timer is left waiting
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  EXPECT_FALSE(deadline.expired());
}

TEST(IoDeadline, OutlivedByItsTimerWithoutHarm) {
  net::io_context io;
  SocketPair pair(io);
  {
    IoDeadline deadline(pair.client);
    deadline.begin(5ms);
  }
  io.run_for(50ms);
  EXPECT_TRUE(pair.client.is_open());
}

}  // namespace
}  // namespace infergate::http
