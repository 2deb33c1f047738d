#include "http/connect.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <optional>
#include <vector>

namespace infergate::http {
namespace {

namespace net = boost::asio;
using boost::system::error_code;
using net::ip::tcp;

tcp::endpoint loopback(unsigned short port) {
  return {net::ip::make_address("127.0.0.1"), port};
}

// A port bound but not listening: a connect to it is refused.
struct RefusingPort {
  explicit RefusingPort(net::io_context& io) : socket(io) {
    socket.open(tcp::v4());
    socket.bind(loopback(0));
  }
  tcp::endpoint endpoint() const { return socket.local_endpoint(); }
  tcp::socket socket;
};

error_code connect(net::io_context& io, const std::vector<tcp::endpoint>& addresses) {
  const auto endpoints = tcp::resolver::results_type::create(addresses.begin(), addresses.end(), "test", "0");
  boost::beast::tcp_stream stream(io);
  stream.expires_after(std::chrono::seconds(5));
  std::optional<error_code> result;
  net::co_spawn(io, connect_each(stream, endpoints), [&](const std::exception_ptr&, error_code ec) { result = ec; });
  io.restart();
  io.run();
  return result.value_or(net::error::operation_aborted);
}

TEST(ConnectEach, TakesTheFirstAddressThatAccepts) {
  net::io_context io;
  RefusingPort refusing(io);
  tcp::acceptor listening(io, loopback(0));
  EXPECT_FALSE(connect(io, {refusing.endpoint(), listening.local_endpoint()}));
}

TEST(ConnectEach, GivesTheLastAddressesErrorWhenNoneAccepts) {
  net::io_context io;
  RefusingPort first(io);
  RefusingPort second(io);
  EXPECT_EQ(connect(io, {first.endpoint(), second.endpoint()}), net::error::connection_refused);
}

TEST(ConnectEach, NoAddressIsHostNotFound) {
  net::io_context io;
  EXPECT_EQ(connect(io, {}), net::error::host_not_found);
}

TEST(ConnectEach, NoDescriptorLeftIsSaidSo) {
#if defined(__SANITIZE_ADDRESS__)
  // UBSan's vptr check opens a pipe to learn whether memory is readable, and reports an error
  // that is not there when it cannot; the build without sanitizers runs this test.
  GTEST_SKIP() << "the sanitizers' runtime needs descriptors at the limit";
#endif
  // Asio's connect over a range calls this operation_aborted.
  net::io_context io;
  tcp::acceptor listening(io, loopback(0));
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  // A new descriptor takes the lowest free number, which the limit must be above.
  const int lowest_free = ::dup(listening.native_handle());
  ASSERT_GE(lowest_free, 0);
  ::close(lowest_free);
  rlimit none_left = before;
  none_left.rlim_cur = static_cast<rlim_t>(lowest_free);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &none_left), 0);
  const error_code ec = connect(io, {listening.local_endpoint()});
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &before), 0);
  EXPECT_EQ(ec, net::error::no_descriptors);
}

}  // namespace
}  // namespace infergate::http
