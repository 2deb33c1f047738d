// A client that stops reading: the write it does not take is abandoned at the send timeout and the
// connection closed, so the handler (and the upstream request behind it) does not wait for ever.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "http/server.hpp"
#include "running_server.hpp"

namespace infergate::http {
namespace {

namespace net = boost::asio;
using net::ip::tcp;
using namespace std::chrono_literals;

constexpr std::string_view kAskForAStream = "POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n";

// Writes a stream of 64 kB chunks until a write fails, noting why and when.
struct Writer {
  std::atomic<bool> done{false};
  boost::system::error_code error;
  std::chrono::steady_clock::time_point failed_at;

  Handler handler() {
    return [this](Exchange& ex) -> net::awaitable<void> {
      ex.begin_stream(200, "text/event-stream");
      const std::string chunk(64 << 10, 'x');
      for (;;) {
        if (const auto ec = co_await ex.write_chunk(chunk)) {
          error = ec;
          failed_at = std::chrono::steady_clock::now();
          done = true;
          co_return;
        }
      }
    };
  }
};

tcp::socket connect_and_ask(net::io_context& io, std::uint16_t port) {
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  net::write(socket, net::buffer(kAskForAStream));
  return socket;
}

TEST(ServerSendTimeout, AClientThatStopsReadingIsLetGoAtTheSendTimeout) {
  Writer writer;
  ServerLimits limits;
  limits.send_timeout = 300ms;
  RunningServer server(writer.handler(), limits);
  net::io_context io;
  tcp::socket socket = connect_and_ask(io, server.port);
  const auto asked = std::chrono::steady_clock::now();
  for (int i = 0; i < 100 && !writer.done; ++i) {
    std::this_thread::sleep_for(50ms);  // reading nothing: the socket buffers fill
  }
  ASSERT_TRUE(writer.done);
  EXPECT_EQ(writer.error, boost::beast::error::timeout) << writer.error.message();
  // The limit is on each wait, on the coarse clock: a few milliseconds more than 300 ms.
  EXPECT_GE(writer.failed_at - asked, 300ms);
  EXPECT_LT(writer.failed_at - asked, 3s);
  // What was sent before is still there to read, and then the connection ends.
  std::string received;
  boost::system::error_code ec;
  net::read(socket, net::dynamic_buffer(received), ec);
  EXPECT_TRUE(ec == net::error::eof || ec == net::error::connection_reset) << ec.message();
  EXPECT_GT(received.size(), std::size_t{64} << 10);
}

TEST(ServerSendTimeout, AClientThatReadsSlowlyButSteadilyIsServed) {
  std::atomic<bool> finished{false};
  ServerLimits limits;
  limits.send_timeout = 300ms;
  RunningServer server(
      [&](Exchange& ex) -> net::awaitable<void> {
        ex.begin_stream(200, "text/event-stream");
        const std::string chunk(64 << 10, 'x');
        for (int i = 0; i < 40; ++i) {  // 2.5 MB: many times what the socket buffers hold
          if (co_await ex.write_chunk(chunk, i == 39)) {
            co_return;
          }
        }
        finished = true;
      },
      limits);
  net::io_context io;
  tcp::socket socket = connect_and_ask(io, server.port);
  std::string received;
  char buffer[64 << 10];
  boost::system::error_code ec;
  while (!finished || socket.available(ec) > 0) {
    std::this_thread::sleep_for(20ms);  // each wait of the server's far below its limit
    received.append(buffer, socket.read_some(net::buffer(buffer), ec));
    if (ec) {
      break;
    }
  }
  EXPECT_TRUE(finished);
  EXPECT_GT(received.size(), std::size_t{40} * (64 << 10));
}

}  // namespace
}  // namespace infergate::http
