#pragma once
// Connecting a stream to the addresses a name resolved to, one at a time.
//
// Asio's connect over a range reports a socket it could not open (no descriptor left) as
// operation_aborted, which reads as if the connect had been cancelled. This one hands that error
// back as it is, and stops there: every address would fail the same way. The stream's expiry,
// set by the caller, bounds all the addresses together.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/system/error_code.hpp>

namespace infergate::http {

// The first address that accepts the connection, or the last address's error (host_not_found
// when there is none).
boost::asio::awaitable<boost::system::error_code> connect_each(
    boost::beast::tcp_stream& stream, const boost::asio::ip::tcp::resolver::results_type& endpoints);

}  // namespace infergate::http
