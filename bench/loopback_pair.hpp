#pragma once
// Two connected TCP sockets on 127.0.0.1, the sender without Nagle's delay: what the socket
// benchmarks send and receive over.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

namespace infergate::microbench {

struct LoopbackPair {
  explicit LoopbackPair(boost::asio::io_context& io) : sender(io), receiver(io) {
    using boost::asio::ip::tcp;
    tcp::acceptor acceptor(io, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
    sender.connect(acceptor.local_endpoint());
    acceptor.accept(receiver);
    sender.set_option(tcp::no_delay(true));
  }
  boost::asio::ip::tcp::socket sender;
  boost::asio::ip::tcp::socket receiver;
};

}  // namespace infergate::microbench
