#pragma once
// Two ends of one loopback connection, for tests of what happens on a socket.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

namespace infergate::http {

struct SocketPair {
  explicit SocketPair(boost::asio::io_context& io) : client(io), server(io) {
    boost::asio::ip::tcp::acceptor acceptor(
        io, boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
    client.connect(acceptor.local_endpoint());
    acceptor.accept(server);
  }
  boost::asio::ip::tcp::socket client;  // the end that connected
  boost::asio::ip::tcp::socket server;  // the end that was accepted
};

}  // namespace infergate::http
