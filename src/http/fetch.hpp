#pragma once
// One request on a fresh connection, with the whole (bounded) response body: for control-plane
// calls such as GET /v1/models, never for proxied traffic.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <span>
#include <string>
#include <string_view>

#include "http/client.hpp"

namespace infergate::http {

struct FetchedResponse {
  ResponseHead head;
  std::string body;  // at most max_body bytes; the rest is read and dropped
};

// Errors carry where they happened: a connect error comes from Connection::open.
struct FetchError {
  boost::system::error_code ec;
  bool while_connecting = false;
};

boost::asio::awaitable<boost::system::result<FetchedResponse, FetchError>> fetch(
    boost::asio::any_io_executor executor, const Url& url, std::string_view method, std::string_view target,
    std::span<const Header> headers, std::string_view body, std::chrono::milliseconds timeout, TlsOptions tls = {},
    std::size_t max_body = std::size_t{1} << 20);

// Enough of an error body to show its message; the rest is read and dropped.
inline constexpr std::size_t kErrorBodyLimit = std::size_t{64} << 10;

// Reads the rest of the current response body, keeping at most `max_body` bytes of it.
boost::asio::awaitable<std::string> read_bounded_body(Connection& conn, std::size_t max_body = kErrorBodyLimit);

}  // namespace infergate::http
