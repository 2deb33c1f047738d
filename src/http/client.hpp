#pragma once
// One HTTP/1.1 client connection (plain TCP or TLS), for clients that stream: the response body
// is handed over piece by piece as it arrives, never buffered whole.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/container/small_vector.hpp>
#include <boost/system/error_code.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "http/server.hpp"
#include "http/url.hpp"

namespace infergate::http {

struct TlsOptions {
  bool verify_peer = true;  // against the system's certificate store, with the URL's host name
};

// The status line and headers of a response. The headers share one buffer (one allocation per
// response, not one per header); the views handed out live as long as the head.
class ResponseHead {
 public:
  int status = 0;
  bool keep_alive = true;
  std::optional<std::uint64_t> content_length;  // when the body is delimited by one

  // One header more, for a head built by hand rather than read (tests, callers that make one up).
  void add_header(std::string_view name, std::string_view value);
  // The headers of a parsed head, in place of any before: `fields` view `text` (the head as read),
  // which is copied whole, once, and each field found in the copy where it was in `text`. A field
  // that views anything else is appended.
  void assign_headers(std::string_view text, std::span<const Header> fields);

  // Value of the named header (case-insensitive), "" when absent.
  [[nodiscard]] std::string_view header(std::string_view name) const;
  [[nodiscard]] std::size_t header_count() const { return spans_.size(); }
  // Inline, without the bounds checks of substr: the proxy walks every header of every answer.
  [[nodiscard]] Header header_at(std::size_t index) const {
    const Span& s = spans_[index];
    return Header{std::string_view(text_.data() + s.name_at, s.name_size),
                  std::string_view(text_.data() + s.value_at, s.value_size)};
  }

 private:
  struct Span {
    std::uint32_t name_at;
    std::uint32_t name_size;
    std::uint32_t value_at;
    std::uint32_t value_size;
  };
  std::string text_;
  boost::container::small_vector<Span, 12> spans_;
};

class Connection {
 public:
  virtual ~Connection() = default;

  // Resolves, connects (TCP_NODELAY) and, for https, completes the TLS handshake with SNI.
  static boost::asio::awaitable<boost::system::result<std::unique_ptr<Connection>>> open(
      boost::asio::any_io_executor executor, const Url& url, std::chrono::milliseconds timeout, TlsOptions tls = {});

  // Sends one request with a Content-Length body, the concatenation of `body` (pieces gathered
  // by the write, not copied), and reads its response's head into head(). Host and
  // Content-Length are added here. One call, not a send and a read: each call is a coroutine
  // frame, per request. A server that answers and hangs up before taking the whole body (over
  // plain TCP) gives its answer, not the broken write; request_sent() is then false and the
  // connection not reusable.
  virtual boost::asio::awaitable<boost::system::error_code> request(std::string_view method, std::string_view target,
                                                                    std::span<const Header> headers,
                                                                    std::span<const std::string_view> body) = 0;

  // The head the last successful request() read. It stays with the connection, and the next
  // request() overwrites it (reusing its storage: no allocation per response), so a caller that
  // hands the connection on copies what it still needs first.
  [[nodiscard]] virtual const ResponseHead& head() const = 0;

  // Whether the last request() got the whole request out: when it failed, whether it failed
  // sending (a refused or broken connection) or waiting for, or reading, the response's head.
  [[nodiscard]] virtual bool request_sent() const = 0;

  // The next piece of the (de-chunked) body as soon as it arrives; empty at the end of the body.
  // The view is valid until the next call.
  virtual boost::asio::awaitable<boost::system::result<std::string_view>> read_body_some() = 0;

  // How many reads this connection has made from its socket. A piece of the body that came with
  // no new read arrived with what was read before it, so a caller timing each piece need not
  // read the clock again.
  [[nodiscard]] virtual std::uint64_t socket_reads() const = 0;

  // Applies to each read and write from now on: the longest wait for the peer.
  virtual void set_io_timeout(std::chrono::milliseconds timeout) = 0;

  // Leaves the connection's timer waiting when a response ends, instead of stopping it: the next
  // request then only moves its deadline, where stopping and starting the timer again costs two
  // timer-queue updates and a completion per request. An idle connection then holds pending work
  // until its last deadline passes, which would keep a finishing io_context running: for loops
  // that run anyway, such as the gateway's.
  virtual void keep_timer_armed() = 0;

  // True once the current response body has been read to its end (nothing more will come).
  [[nodiscard]] virtual bool body_complete() const = 0;

  // True when the last response was read to its end and both sides allow keep-alive.
  [[nodiscard]] virtual bool reusable() const = 0;
  virtual void close() = 0;
};

}  // namespace infergate::http
