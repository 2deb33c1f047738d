// Responses whose body length the handler announces (a body relayed whole): unframed bytes, the
// connection kept for the next request; a body that ends short or runs over closes it. And the
// framing of those without a length: chunks, or for an HTTP/1.0 client the bare body. And HEAD
// requests, answered with the head alone.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <array>
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

constexpr std::string_view kRequest = "POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n";

// Everything the server sends on one connection after `requests` copies of `request`, until it
// closes the connection.
std::string send_pipelined(std::uint16_t port, int requests, std::string_view request = kRequest) {
  net::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  std::string all;
  for (int i = 0; i < requests; ++i) {
    all += request;
  }
  net::write(socket, net::buffer(all));
  socket.shutdown(tcp::socket::shutdown_send);
  std::string received;
  boost::system::error_code ec;
  net::read(socket, net::dynamic_buffer(received), ec);
  return received;
}

std::size_t count(std::string_view text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

TEST(ServerKnownLength, SendsTheBodyUnframedAndKeepsTheConnection) {
  RunningServer server([](Exchange& ex) -> net::awaitable<void> {
    ex.begin_stream(200, "application/json", {}, 11);
    co_await ex.write_chunk("hello ");
    const std::array<std::string_view, 1> rest{"world"};
    co_await ex.write_chunk_gathered(rest, true);
  });
  const std::string received = send_pipelined(server.port, 2);
  EXPECT_EQ(count(received, "Content-Length: 11\r\n\r\nhello world"), 2U) << received;
  EXPECT_EQ(received.find("Transfer-Encoding"), std::string::npos);
  EXPECT_EQ(received.find("0\r\n\r\n"), std::string::npos);  // no terminating chunk
}

TEST(ServerKnownLength, FieldsAlreadyWrittenAsLinesGoInTheHead) {
  RunningServer server([](Exchange& ex) -> net::awaitable<void> {
    const std::array<Header, 1> extra{Header{"X-One", "1"}};
    ex.begin_stream(200, "application/json", extra, 2, "x-two: 2\r\nx-three: 3\r\n");
    co_await ex.write_chunk("ok", true);
  });
  const std::string received = send_pipelined(server.port, 1);
  EXPECT_NE(received.find("\r\nX-One: 1\r\nx-two: 2\r\nx-three: 3\r\n"), std::string::npos) << received;
  EXPECT_NE(received.find("\r\n\r\nok"), std::string::npos) << received;
}

TEST(ServerKnownLength, AnEmptyBodyEndsWithItsHead) {
  RunningServer server([](Exchange& ex) -> net::awaitable<void> {
    ex.begin_stream(200, "application/json", {}, 0);
    co_await ex.write_chunk({}, true);
  });
  const std::string received = send_pipelined(server.port, 2);
  EXPECT_EQ(count(received, "Content-Length: 0\r\n\r\n"), 2U) << received;
}

TEST(ServerKnownLength, ABodyThatEndsShortClosesTheConnection) {
  RunningServer server([](Exchange& ex) -> net::awaitable<void> {
    ex.begin_stream(200, "application/json", {}, 11);
    co_await ex.write_chunk("hello", true);
  });
  const std::string received = send_pipelined(server.port, 2);
  // One response, cut short; the second request is never answered.
  EXPECT_EQ(count(received, "HTTP/1.1 200"), 1U) << received;
  EXPECT_TRUE(received.ends_with("\r\n\r\nhello")) << received;
}

TEST(ServerKnownLength, AWritePastTheLengthSendsNothingAndClosesTheConnection) {
  std::atomic<bool> refused{false};
  RunningServer server([&refused](Exchange& ex) -> net::awaitable<void> {
    ex.begin_stream(200, "application/json", {}, 3);
    const auto ec = co_await ex.write_chunk("too long", true);
    refused = ec == net::error::message_size;
  });
  EXPECT_EQ(send_pipelined(server.port, 2), "");
  EXPECT_TRUE(refused);
}

TEST(ServerKnownLength, AStreamWithoutALengthStaysChunked) {
  RunningServer server([](Exchange& ex) -> net::awaitable<void> {
    ex.begin_stream(200, "text/event-stream");
    co_await ex.write_chunk("data: 1\n\n", true);
  });
  const std::string received = send_pipelined(server.port, 1);
  EXPECT_NE(received.find("Transfer-Encoding: chunked\r\n\r\n9\r\ndata: 1\n\n\r\n0\r\n\r\n"), std::string::npos)
      << received;
}

TEST(ServerChunked, EveryChunkIsFramedWhereverTheStreamEnds) {
  // Writes of one piece, of several (an empty one among them), of nothing, and the last: each
  // chunk framed whole, empty writes sending nothing, the end coming once.
  RunningServer server([](Exchange& ex) -> net::awaitable<void> {
    ex.begin_stream(200, "text/event-stream");
    co_await ex.write_chunk("a", false);
    const std::array<std::string_view, 3> pieces{"bc", "", "d"};
    co_await ex.write_chunk_gathered(pieces, false);
    co_await ex.write_chunk("", false);
    co_await ex.write_chunk("e", true);
  });
  const std::string received = send_pipelined(server.port, 1);
  EXPECT_NE(received.find("chunked\r\n\r\n1\r\na\r\n3\r\nbcd\r\n1\r\ne\r\n0\r\n\r\n"), std::string::npos) << received;
  RunningServer ends_apart([](Exchange& ex) -> net::awaitable<void> {
    ex.begin_stream(200, "text/event-stream");
    co_await ex.write_chunk("ab", false);
    co_await ex.end_stream();
  });
  const std::string apart = send_pipelined(ends_apart.port, 1);
  EXPECT_TRUE(apart.ends_with("chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n")) << apart;
}

// The first chunk's size line goes out in the head's buffer: the next response on the connection
// writes a head of its own, with no trace of it, and a first write with nothing in it adds none.
TEST(ServerChunked, EachResponseOnAConnectionGetsAFreshHead) {
  RunningServer server([](Exchange& ex) -> net::awaitable<void> {
    ex.begin_stream(200, "text/event-stream");
    co_await ex.write_chunk("", false);
    const std::array<std::string_view, 2> pieces{"data: 1", "2\n\n"};
    co_await ex.write_chunk_gathered(pieces, true);
  });
  const std::string received = send_pipelined(server.port, 2);
  const std::string_view one = "chunked\r\n\r\na\r\ndata: 12\n\n\r\n0\r\n\r\n";
  EXPECT_EQ(count(received, one), 2U) << received;
  EXPECT_EQ(count(received, "HTTP/1.1 200"), 2U) << received;
  EXPECT_TRUE(received.ends_with(one)) << received;
}

// RFC 9110 section 9.3.2: a HEAD request is answered with the head a GET would get and no body;
// the next request on the connection is answered as usual.
TEST(ServerHead, AnsweredAsAGetWithoutTheBody) {
  RunningServer server([](Exchange& ex) -> net::awaitable<void> {
    co_await ex.respond(200, "application/json", std::string(ex.method()) == "GET" ? "{\"get\":1}" : "{}");
  });
  const std::string received =
      send_pipelined(server.port, 1, "HEAD /x HTTP/1.1\r\nHost: t\r\n\r\nGET /x HTTP/1.1\r\nHost: t\r\n\r\n");
  EXPECT_EQ(count(received, "Content-Length: 9\r\n\r\n"), 2U) << received;
  EXPECT_EQ(count(received, "{\"get\":1}"), 1U) << received;
  EXPECT_TRUE(received.ends_with("\r\n\r\n{\"get\":1}")) << received;
}

TEST(ServerHead, AStreamSendsItsHeadAlone) {
  RunningServer server([](Exchange& ex) -> net::awaitable<void> {
    ex.begin_stream(200, "text/event-stream");
    co_await ex.write_chunk("data: 1\n\n", false);
    co_await ex.write_chunk("data: 2\n\n", false);
    co_await ex.end_stream();
  });
  RunningServer known_length([](Exchange& ex) -> net::awaitable<void> {
    ex.begin_stream(200, "application/json", {}, 5);
    co_await ex.write_chunk("hello", true);
  });
  for (const std::uint16_t port : {server.port, known_length.port}) {
    const std::string received = send_pipelined(port, 2, "HEAD /x HTTP/1.1\r\nHost: t\r\n\r\n");
    EXPECT_EQ(count(received, "HTTP/1.1 200"), 2U) << received;
    EXPECT_TRUE(received.ends_with("\r\n\r\n")) << received;
    EXPECT_EQ(received.find("data:"), std::string::npos) << received;
    EXPECT_EQ(received.find("hello"), std::string::npos) << received;
  }
}

constexpr std::string_view kHttp10KeepAlive =
    "POST /x HTTP/1.0\r\nHost: t\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n";

// HTTP/1.0 has no chunked framing (RFC 9112 section 6.1): a stream to such a client is the bare
// body, ended by closing the connection, even when the client asked to keep it.
TEST(ServerHttp10, AStreamWithoutALengthIsTheBareBodyEndedByClosing) {
  RunningServer server([](Exchange& ex) -> net::awaitable<void> {
    ex.begin_stream(200, "text/event-stream");
    co_await ex.write_chunk("data: 1\n\n", false);
    const std::array<std::string_view, 2> pieces{"data: ", "2\n\n"};
    co_await ex.write_chunk_gathered(pieces, false);
    co_await ex.end_stream();
  });
  const std::string received = send_pipelined(server.port, 2, kHttp10KeepAlive);
  EXPECT_EQ(count(received, "HTTP/1.1 200"), 1U) << received;
  EXPECT_EQ(received.find("Transfer-Encoding"), std::string::npos) << received;
  EXPECT_NE(received.find("Connection: close\r\n"), std::string::npos) << received;
  EXPECT_TRUE(received.ends_with("\r\n\r\ndata: 1\n\ndata: 2\n\n")) << received;
}

TEST(ServerHttp10, AResponseOfKnownLengthKeepsTheConnectionTheClientAskedFor) {
  RunningServer server(
      [](Exchange& ex) -> net::awaitable<void> { co_await ex.respond(200, "application/json", "{}"); });
  const std::string received = send_pipelined(server.port, 2, kHttp10KeepAlive);
  EXPECT_EQ(count(received, "Content-Length: 2\r\n\r\n{}"), 2U) << received;
  EXPECT_EQ(received.find("Connection: close"), std::string::npos) << received;
}

// RFC 9110 section 10.1.1: a server ignores an HTTP/1.0 request's 100-continue expectation. The
// head goes first and the body only after a pause, as a client waiting for the interim answer
// sends it; an HTTP/1.1 request gets the interim answer in that pause.
std::string answer_to_expectation(std::uint16_t port, std::string_view version) {
  net::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  net::write(socket, net::buffer("POST /x " + std::string(version) +
                                 "\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  net::write(socket, net::buffer(std::string_view("{}")));
  socket.shutdown(tcp::socket::shutdown_send);
  std::string received;
  boost::system::error_code ec;
  net::read(socket, net::dynamic_buffer(received), ec);
  return received;
}

TEST(ServerHttp10, NoInterimContinueForAnHttp10Expectation) {
  RunningServer server([](Exchange& ex) -> net::awaitable<void> {
    co_await ex.respond(200, "application/json", std::string(ex.body()));
  });
  const std::string http10 = answer_to_expectation(server.port, "HTTP/1.0");
  EXPECT_TRUE(http10.starts_with("HTTP/1.1 200")) << http10;
  EXPECT_TRUE(http10.ends_with("\r\n\r\n{}")) << http10;
  const std::string http11 = answer_to_expectation(server.port, "HTTP/1.1");
  EXPECT_TRUE(http11.starts_with("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200")) << http11;
}

}  // namespace
}  // namespace infergate::http
