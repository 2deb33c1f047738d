// A request refused before its body was read (413, 431, 400): the client gets the error even when
// it writes its whole body before reading, because the server reads and drops the rest before it
// closes. Closed at once with bytes unread, the kernel answers the client's writes with a reset,
// and the client sees "broken pipe" or "connection reset" in place of the error.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <string>

#include "http/server.hpp"
#include "running_server.hpp"

namespace infergate::http {
namespace {

namespace net = boost::asio;
using net::ip::tcp;

// Sends `head` and `body_bytes` of body, all of it, then reads the answer to the server's close.
std::string send_all_then_read(std::uint16_t port, std::string_view head, std::size_t body_bytes) {
  net::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  net::write(socket, net::buffer(head));
  const std::string body(body_bytes, 'x');
  boost::system::error_code ec;
  net::write(socket, net::buffer(body), ec);
  EXPECT_FALSE(ec) << ec.message();
  socket.shutdown(tcp::socket::shutdown_send, ec);
  std::string received;
  net::read(socket, net::dynamic_buffer(received), ec);
  EXPECT_EQ(ec, net::error::eof) << ec.message();
  return received;
}

Handler answer_ok() {
  return [](Exchange& ex) -> net::awaitable<void> { co_await ex.respond(200, "application/json", "{}"); };
}

TEST(ServerRefusal, ABodyOverTheLimitGets413EvenIfTheClientSendsItAllFirst) {
  ServerLimits limits;
  limits.max_body_bytes = 1024;
  const RunningServer server(answer_ok(), limits);
  // Far more than the socket buffers on both sides hold: the server must read it for the write to end.
  constexpr std::size_t kBody = std::size_t{32} << 20;
  const std::string head = "POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: " + std::to_string(kBody) + "\r\n\r\n";
  const std::string received = send_all_then_read(server.port, head, kBody);
  EXPECT_TRUE(received.starts_with("HTTP/1.1 413")) << received;
  EXPECT_NE(received.find("larger than the limit of 1024 bytes"), std::string::npos) << received;
}

TEST(ServerRefusal, AMalformedChunkedBodyGets400EvenIfTheClientSendsMoreAfterIt) {
  const RunningServer server(answer_ok());
  const std::string head = "POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
  const std::string received = send_all_then_read(server.port, head, std::size_t{16} << 20);
  EXPECT_TRUE(received.starts_with("HTTP/1.1 400")) << received;
}

}  // namespace
}  // namespace infergate::http
