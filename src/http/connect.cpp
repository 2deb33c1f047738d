#include "http/connect.hpp"

#include <boost/beast/core/error.hpp>

#include <tuple>

#include "core/as_tuple.hpp"
#include "http/out_of_resources.hpp"

namespace infergate::http {

boost::asio::awaitable<boost::system::error_code> connect_each(
    boost::beast::tcp_stream& stream, const boost::asio::ip::tcp::resolver::results_type& endpoints) {
  boost::system::error_code ec = boost::asio::error::host_not_found;
  boost::system::error_code ignored;
  for (const auto& entry : endpoints) {
    stream.socket().close(ignored);  // a socket whose connect failed is not connected again
    std::tie(ec) = co_await stream.async_connect(entry.endpoint(), as_tuple);
    if (!ec || out_of_resources(ec) || ec == boost::beast::error::timeout) {
      break;
    }
  }
  co_return ec;
}

}  // namespace infergate::http
