#pragma once
// What the HTTP server allows each connection, apart from the server itself so that configuration
// code can name the defaults without the server's Asio headers.
#include <chrono>
#include <cstddef>

namespace infergate::http {

struct ServerLimits {
  std::size_t max_body_bytes = std::size_t{8} << 20;
  std::size_t max_header_bytes = std::size_t{64} << 10;
  // From the first byte of a request (or the wait for the next one on a kept-alive connection) to
  // the end of its header. A client that sent nothing is closed silently; one that sent part of a
  // header gets 408.
  std::chrono::milliseconds header_timeout{30'000};
  std::chrono::milliseconds body_timeout{60'000};
  // A response write the client does not take within this is abandoned and the connection closed
  // (nginx's send_timeout). A client that stops reading would otherwise hold its request, and
  // the upstream's, for as long as it keeps the connection open.
  std::chrono::milliseconds send_timeout{60'000};
};

}  // namespace infergate::http
