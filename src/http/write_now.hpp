#pragma once
// Writes to a socket without going through the reactor when the socket can take the bytes at
// once, as it almost always can for a response or a request of a few kilobytes. An Asio write
// that completes at once still costs a round trip through the scheduler (an operation allocated,
// posted, dequeued and completed, and the coroutine suspended and resumed); this costs one
// system call. The caller writes whatever did not fit with an ordinary asynchronous write.
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>

#include <cstddef>
#include <span>

namespace infergate::http {

// Pieces of up to this many bytes in all are copied into one buffer and sent with send(): on
// loopback that costs 5-7% less than sendmsg gathering them (its message header and iovecs copied
// in, each piece appended to the socket on its own); by 8 kB the copy costs as much as it saves
// (bench/socket_send_benchmark.cpp), and sendmsg is kept for more.
inline constexpr std::size_t kGatherBytes = 4096;

// How many bytes one non-blocking send of `buffers` on `fd` took: 0 when the socket would block.
// `ec` is set only on a real error.
std::size_t send_some(int fd, std::span<const boost::asio::const_buffer> buffers, boost::system::error_code& ec);

// The tail of `buffers` after their first `sent` bytes, rewritten in place.
std::span<boost::asio::const_buffer> drop_sent(std::span<boost::asio::const_buffer> buffers, std::size_t sent);

// Sends as much of `buffers` as the socket accepts now (one send_some), and returns
// what is left to send: the tail of `buffers`, rewritten in place. `ec` is set only on a real
// error (a socket that would block is not one: everything is left).
std::span<boost::asio::const_buffer> write_now(boost::asio::ip::tcp::socket& socket,
                                               std::span<boost::asio::const_buffer> buffers,
                                               boost::system::error_code& ec);

}  // namespace infergate::http
