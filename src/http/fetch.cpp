#include "http/fetch.hpp"

namespace infergate::http {

namespace net = boost::asio;

net::awaitable<std::string> read_bounded_body(Connection& conn, std::size_t max_body) {
  std::string body;
  for (;;) {
    auto piece = co_await conn.read_body_some();
    if (!piece || piece->empty()) {
      co_return body;
    }
    if (body.size() < max_body) {
      body.append(piece->substr(0, max_body - body.size()));
    }
  }
}

net::awaitable<boost::system::result<FetchedResponse, FetchError>> fetch(
    net::any_io_executor executor, const Url& url, std::string_view method, std::string_view target,
    std::span<const Header> headers, std::string_view body, std::chrono::milliseconds timeout, TlsOptions tls,
    std::size_t max_body) {
  auto opened = co_await Connection::open(executor, url, timeout, tls);
  if (!opened) {
    co_return FetchError{opened.error(), true};
  }
  Connection& conn = **opened;
  conn.set_io_timeout(timeout);
  const std::string_view pieces[] = {body};
  if (const auto ec = co_await conn.request(method, target, headers, pieces)) {
    co_return FetchError{ec, false};
  }
  FetchedResponse response{conn.head(), {}};
  response.body = co_await read_bounded_body(conn, max_body);
  co_return response;
}

}  // namespace infergate::http
