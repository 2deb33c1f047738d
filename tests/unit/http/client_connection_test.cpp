#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "http/client.hpp"

namespace infergate::http {
namespace {

namespace net = boost::asio;
namespace bhttp = boost::beast::http;
using net::ip::tcp;
using namespace std::chrono_literals;

// How a peer's connection ends once it has answered: it waits for the client to let go, or it
// hangs up with the rest of the request unread (the kernel then resets the connection under a
// client still writing its body).
enum class Ending { wait_for_client, hang_up };

// A peer on loopback that answers each request on one connection with the next of `responses`,
// as soon as it has read the request's head, each written in pieces of `step` bytes with `pause`
// between them, so that the client sees framing cut at many places.
class ScriptedPeer {
 public:
  ScriptedPeer(std::vector<std::string> responses, std::size_t step, std::chrono::microseconds pause = 200us,
               Ending ending = Ending::wait_for_client)
      : acceptor_(io_, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0)) {
    url.host = "127.0.0.1";
    url.port = acceptor_.local_endpoint().port();
    thread_ = std::thread([this, responses = std::move(responses), step, pause, ending] {
      tcp::socket socket(io_);
      acceptor_.accept(socket);
      socket.set_option(tcp::no_delay(true));
      std::string request;
      for (const std::string& response : responses) {
        boost::system::error_code ec;
        const std::size_t n = net::read_until(socket, net::dynamic_buffer(request), "\r\n\r\n", ec);
        if (ec) {
          return;
        }
        request.erase(0, n);
        for (std::size_t at = 0; at < response.size(); at += step) {
          net::write(socket, net::buffer(response.substr(at, step)), ec);
          std::this_thread::sleep_for(pause);
        }
      }
      if (ending == Ending::hang_up) {
        return;  // the socket closes with what the client sent still unread
      }
      socket.shutdown(tcp::socket::shutdown_send);
      char byte = 0;
      boost::system::error_code ignored;
      socket.read_some(net::buffer(&byte, 1), ignored);  // until the client lets go
    });
  }
  ~ScriptedPeer() { thread_.join(); }

  Url url;

 private:
  net::io_context io_;
  tcp::acceptor acceptor_;
  std::thread thread_;
};

struct Received {
  int status = 0;
  std::optional<std::uint64_t> content_length;
  std::string retry_after;
  std::string body;
  boost::system::error_code error;
  bool sent = false;  // request_sent(): the request went out before anything failed
  bool reusable = false;
  std::uint64_t body_reads = 0;  // socket reads while reading the body, after the head
};

// How exchange() uses its connection.
struct ExchangeOptions {
  std::chrono::milliseconds io_timeout = 5s;
  bool keep_timer_armed = false;
  std::chrono::milliseconds idle = 0ms;  // after each response
  std::size_t body_bytes = 2;            // more than the socket buffers take makes a write wait
};

// Sends `method` requests on one connection to the peer and reads each response whole.
std::vector<Received> exchange(const Url& url, std::size_t count, std::string_view method = "POST",
                               ExchangeOptions options = {}) {
  net::io_context io;
  std::vector<Received> got;
  net::co_spawn(
      io,
      [&]() -> net::awaitable<void> {
        auto opened = co_await Connection::open(io.get_executor(), url, 5s);
        if (!opened) {
          ADD_FAILURE() << opened.error().message();
          co_return;
        }
        auto& conn = **opened;
        if (options.keep_timer_armed) {
          conn.keep_timer_armed();
        }
        conn.set_io_timeout(options.io_timeout);
        const std::string padding(options.body_bytes - 2, ' ');
        for (std::size_t i = 0; i < count; ++i) {
          Received r;
          const std::string_view body[] = {"{", padding, "}"};  // gathered into one Content-Length body
          const auto ec = co_await conn.request(method, "/v1/x", {}, body);
          r.sent = conn.request_sent();
          if (ec) {
            r.error = ec;
            got.push_back(r);
            co_return;
          }
          r.status = conn.head().status;
          r.content_length = conn.head().content_length;
          r.retry_after = conn.head().header("Retry-After");
          const std::uint64_t head_reads = conn.socket_reads();
          for (;;) {
            auto piece = co_await conn.read_body_some();
            if (!piece) {
              r.error = piece.error();
              break;
            }
            if (piece->empty()) {
              break;
            }
            r.body.append(*piece);
          }
          r.reusable = conn.reusable();
          r.body_reads = conn.socket_reads() - head_reads;
          got.push_back(r);
          if (options.idle > 0ms) {
            net::steady_timer idle(io, options.idle);
            co_await idle.async_wait(net::use_awaitable);
          }
        }
      },
      [](const std::exception_ptr& e) {
        if (e) {
          std::rethrow_exception(e);
        }
      });
  io.run_for(20s);
  return got;
}

const std::string kChunked =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    "f\r\ndata: {\"a\":1}\n\n\r\n11;ext\r\ndata: {\"bb\":22}\n\n\r\n0\r\nX-Trailer: 1\r\n\r\n";
const std::string kLength = "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length: 5\r\n\r\nslow!";

TEST(ClientConnection, ReadsChunkedAndSizedBodiesOnOneKeptAliveConnection) {
  for (const std::size_t step : {std::size_t{1}, std::size_t{3}, std::size_t{4096}}) {
    ScriptedPeer peer({kChunked, kLength, "HTTP/1.1 100 Continue\r\n\r\n" + kLength, kChunked}, step);
    const auto got = exchange(peer.url, 4);
    ASSERT_EQ(got.size(), 4U) << "step " << step;
    EXPECT_FALSE(got[0].error) << got[0].error.message();
    EXPECT_EQ(got[0].status, 200);
    EXPECT_EQ(got[0].body, "data: {\"a\":1}\n\ndata: {\"bb\":22}\n\n");
    EXPECT_EQ(got[0].content_length, std::nullopt);
    EXPECT_TRUE(got[0].reusable);
    EXPECT_EQ(got[1].status, 429);
    EXPECT_EQ(got[1].body, "slow!");
    EXPECT_EQ(got[1].content_length, 5U);
    EXPECT_EQ(got[1].retry_after, "1");
    EXPECT_TRUE(got[1].reusable);
    EXPECT_EQ(got[2].status, 429);  // after the interim 100 Continue
    EXPECT_EQ(got[2].body, "slow!");
    // The connection's head is read anew for each response: nothing of the one before stays.
    EXPECT_EQ(got[3].status, 200);
    EXPECT_EQ(got[3].content_length, std::nullopt);
    EXPECT_EQ(got[3].retry_after, "");
  }
}

// A body that came in the head's read needs no read of its own; one sent a byte at a time does.
TEST(ClientConnection, CountsTheReadsABodyNeeded) {
  ScriptedPeer whole({kLength}, 4096);
  const auto at_once = exchange(whole.url, 1);
  ASSERT_EQ(at_once.size(), 1U);
  EXPECT_EQ(at_once[0].body, "slow!");
  EXPECT_EQ(at_once[0].body_reads, 0U);

  // Each byte must reach a read of its own: the pause between them is long against how long a
  // loaded machine keeps the reading thread from running (200 µs was not, once).
  ScriptedPeer bytewise({kLength}, 1, 5ms);
  const auto trickled = exchange(bytewise.url, 1);
  ASSERT_EQ(trickled.size(), 1U);
  EXPECT_EQ(trickled[0].body, "slow!");
  EXPECT_GE(trickled[0].body_reads, 5U);
}

TEST(ClientConnection, ABodyWithoutLengthEndsWithTheConnection) {
  ScriptedPeer peer({"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"until\":\"close\"}"}, 4);
  const auto got = exchange(peer.url, 1);
  ASSERT_EQ(got.size(), 1U);
  EXPECT_FALSE(got[0].error) << got[0].error.message();
  EXPECT_EQ(got[0].body, "{\"until\":\"close\"}");
  EXPECT_FALSE(got[0].reusable);
}

TEST(ClientConnection, ABodyCutShortIsAPartialMessage) {
  ScriptedPeer peer({"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this"}, 4096);
  const auto got = exchange(peer.url, 1);
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].error, bhttp::error::partial_message);
  EXPECT_EQ(got[0].body, "only this");
}

TEST(ClientConnection, WhatCameBeforeBadFramingIsReadBeforeTheError) {
  // In one write, so that the good chunk and the bad size arrive in one read.
  ScriptedPeer peer({"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\nmore"}, 4096);
  const auto got = exchange(peer.url, 1);
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].body, "hello");
  EXPECT_EQ(got[0].error, bhttp::error::bad_chunk);
  EXPECT_FALSE(got[0].reusable);
}

TEST(ClientConnection, BytesBeyondTheResponseMakeTheConnectionUnfitForReuse) {
  ScriptedPeer peer({kLength + "HTTP/1.1 200 OK\r\n"}, 4096);
  const auto got = exchange(peer.url, 1);
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].body, "slow!");
  EXPECT_FALSE(got[0].reusable);
}

TEST(ClientConnection, AResponseToHeadHasNoBody) {
  ScriptedPeer peer({"HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n", kLength}, 4096);
  const auto got = exchange(peer.url, 2, "HEAD");
  ASSERT_EQ(got.size(), 2U);
  EXPECT_EQ(got[0].status, 200);
  EXPECT_EQ(got[0].body, "");
  EXPECT_TRUE(got[0].reusable);
  EXPECT_EQ(got[1].status, 429);
}

TEST(ClientConnection, AMalformedHeadIsAnErrorNotAGuess) {
  ScriptedPeer peer({"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef"}, 4096);
  const auto got = exchange(peer.url, 1);
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].error, bhttp::error::multiple_content_length);
  EXPECT_TRUE(got[0].sent);  // the request went out; the answer was wrong
}

TEST(ClientConnection, AConnectionThatKeepsItsTimerArmedOutlivesAnIdleDeadline) {
  // Idle for longer than its I/O timeout between two responses, the connection's timer wakes
  // with no operation pending: it must neither cancel the connection nor mark the next one late.
  ScriptedPeer peer({kLength, kLength}, 1024);
  const auto got = exchange(peer.url, 2, "POST", {.io_timeout = 50ms, .keep_timer_armed = true, .idle = 150ms});
  ASSERT_EQ(got.size(), 2u);
  for (const Received& r : got) {
    EXPECT_FALSE(r.error) << r.error.message();
    EXPECT_EQ(r.status, 429);
    EXPECT_EQ(r.body, "slow!");
    EXPECT_TRUE(r.reusable);
  }
}

// A server may refuse a body before it has all come (a 413 for one too large) and close: its
// answer, in the socket before the reset, is what the caller needs, not the broken write.
TEST(ClientConnection, AnAnswerBeforeTheWholeBodyWentOutIsRead) {
  const std::string refusal =
      "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 9\r\nConnection: close\r\n\r\ntoo large";
  ScriptedPeer peer({refusal}, refusal.size(), 0us, Ending::hang_up);
  const auto got = exchange(peer.url, 1, "POST", {.body_bytes = std::size_t{32} << 20});
  ASSERT_EQ(got.size(), 1U);
  EXPECT_FALSE(got[0].error) << got[0].error.message();
  EXPECT_EQ(got[0].status, 413);
  EXPECT_EQ(got[0].body, "too large");
  EXPECT_FALSE(got[0].sent);
  EXPECT_FALSE(got[0].reusable);
}

// Without an answer, the broken write is the error, and the request did not all go out.
TEST(ClientConnection, AHangUpWithoutAnswerIsTheWritesError) {
  ScriptedPeer peer({""}, 1, 0us, Ending::hang_up);
  const auto got = exchange(peer.url, 1, "POST", {.body_bytes = std::size_t{32} << 20});
  ASSERT_EQ(got.size(), 1U);
  EXPECT_TRUE(got[0].error == net::error::connection_reset || got[0].error == net::error::broken_pipe)
      << got[0].error.message();
  EXPECT_FALSE(got[0].sent);
}

}  // namespace
}  // namespace infergate::http
