#include "bench/failure.hpp"

#include <fmt/format.h>
#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

namespace infergate::bench {

namespace net = boost::asio;

std::string failure_class(const boost::system::error_code& ec, Phase phase) {
  if (ec == boost::beast::error::timeout || ec == net::error::timed_out) {
    return phase == Phase::connect ? "connect_timeout" : "timeout";
  }
  if (ec == net::error::connection_refused) {
    return "connect_refused";
  }
  if (ec == net::error::host_not_found || ec == net::error::host_not_found_try_again ||
      ec.category() == net::error::get_netdb_category() || ec.category() == net::error::get_addrinfo_category()) {
    return "dns";
  }
  if (ec.category() == net::error::get_ssl_category() || ec.category() == net::ssl::error::get_stream_category()) {
    return "tls";
  }
  if (ec == net::error::connection_reset || ec == net::error::eof || ec == net::error::broken_pipe ||
      ec == boost::beast::http::error::end_of_stream || ec == boost::beast::http::error::partial_message) {
    return "connection_reset";
  }
  return "io_error";
}

std::string failure_message(const boost::system::error_code& ec, Phase phase, const std::string& target) {
  const std::string cls = failure_class(ec, phase);
  if (cls == "connect_refused") {
    return fmt::format("connection refused by {}: is the server running and listening on that port?", target);
  }
  if (cls == "connect_timeout") {
    return fmt::format("no connection to {} within the timeout: check the address and any firewall", target);
  }
  if (cls == "dns") {
    return fmt::format("cannot resolve the host of {}: {}", target, ec.message());
  }
  if (cls == "tls") {
    return fmt::format("TLS with {} failed: {} (a self-signed certificate needs --insecure)", target, ec.message());
  }
  if (cls == "timeout") {
    return fmt::format("{} went silent for longer than --timeout", target);
  }
  if (cls == "connection_reset") {
    return phase == Phase::response ? fmt::format("{} closed the connection mid-response ({})", target, ec.message())
                                    : fmt::format("{} closed the connection ({})", target, ec.message());
  }
  return fmt::format("I/O error with {}: {}", target, ec.message());
}

}  // namespace infergate::bench
