#include "http/client.hpp"

#include <openssl/ssl.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <strings.h>
#include <array>
#include <cstddef>
#include <memory_resource>
#include <optional>
#include <tuple>

#include "core/append_number.hpp"
#include "http/io_deadline.hpp"

namespace infergate::http {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace ssl = boost::asio::ssl;
using boost::system::error_code;
using boost::system::result;
using net::awaitable;
using net::ip::tcp;
constexpr auto as_tuple = net::as_tuple(net::use_awaitable);

void ResponseHead::add_header(std::string_view name, std::string_view value) {
  const auto at = static_cast<std::uint32_t>(text_.size());
  text_.append(name).append(value);
  spans_.push_back(Span{at, static_cast<std::uint32_t>(name.size()), static_cast<std::uint32_t>(at + name.size()),
                        static_cast<std::uint32_t>(value.size())});
}

Header ResponseHead::header_at(std::size_t index) const {
  const Span& s = spans_[index];
  const std::string_view text(text_);
  return Header{text.substr(s.name_at, s.name_size), text.substr(s.value_at, s.value_size)};
}

std::string_view ResponseHead::header(std::string_view name) const {
  for (std::size_t i = 0; i < spans_.size(); ++i) {
    const Header h = header_at(i);
    if (h.name.size() == name.size() && ::strncasecmp(h.name.data(), name.data(), name.size()) == 0) {
      return h.value;
    }
  }
  return {};
}

namespace {

beast::tcp_stream& lowest(beast::tcp_stream& s) {
  return s;
}
beast::tcp_stream& lowest(beast::ssl_stream<beast::tcp_stream>& s) {
  return s.next_layer();
}

// Beast allocates every header field of a response separately; these allocate from an arena of
// the connection's, emptied before each response, so a response head costs no heap allocation.
using ArenaFields = bhttp::basic_fields<std::pmr::polymorphic_allocator<char>>;
using ResponseParser = bhttp::parser<false, bhttp::buffer_body, std::pmr::polymorphic_allocator<char>>;

template <class Stream>
class StreamConnection final : public Connection {
 public:
  StreamConnection(Stream stream, std::string authority)
      : stream_(std::move(stream)), authority_(std::move(authority)), deadline_(lowest(stream_).socket()) {
    lowest(stream_).expires_never();  // the deadline below times each operation instead
    buffer_.reserve(kReadBytes);      // Beast would otherwise read 512 bytes at a time
  }

  awaitable<error_code> send(std::string_view method, std::string_view target, std::span<const Header> headers,
                             std::string_view body) override {
    head_.clear();
    head_.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: ").append(authority_).append("\r\n");
    for (const auto& h : headers) {
      head_.append(h.name).append(": ").append(h.value).append("\r\n");
    }
    head_ += "Content-Length: ";
    append_decimal(head_, static_cast<std::int64_t>(body.size()));
    head_ += "\r\n\r\n";
    std::array<net::const_buffer, 2> buffers{net::buffer(head_), net::buffer(body)};
    parser_.reset();  // the last response is over; the next one has not begun
    deadline_.begin(timeout_);
    auto [ec, n] = co_await net::async_write(stream_, buffers, as_tuple);
    co_return finished(ec);
  }

  awaitable<result<ResponseHead>> read_head() override {
    parser_.reset();
    arena_.release();
    parser_.emplace(std::piecewise_construct, std::make_tuple(),
                    std::make_tuple(std::pmr::polymorphic_allocator<char>(&arena_)));
    parser_->body_limit(boost::none);
    deadline_.begin(timeout_);
    auto [ec, n] = co_await bhttp::async_read_header(stream_, buffer_, *parser_, as_tuple);
    if (const error_code failed = finished(ec)) {
      co_return failed;
    }
    const auto& message = parser_->get();
    ResponseHead head;
    std::size_t text_bytes = 0;
    for (const auto& field : message) {
      text_bytes += field.name_string().size() + field.value().size();
    }
    head.reserve_text(text_bytes);
    head.status = static_cast<int>(message.result_int());
    head.keep_alive = message.keep_alive();
    for (const auto& field : message) {
      head.add_header(field.name_string(), field.value());
    }
    keep_alive_ = head.keep_alive;
    co_return head;
  }

  awaitable<result<std::string_view>> read_body_some() override {
    if (!parser_) {
      co_return std::string_view{};
    }
    for (;;) {
      if (parser_->is_done()) {
        co_return std::string_view{};
      }
      auto& body = parser_->get().body();
      body.data = chunk_.get();
      body.size = kReadBytes;
      deadline_.begin(timeout_);
      auto [read_ec, n] = co_await bhttp::async_read_some(stream_, buffer_, *parser_, as_tuple);
      error_code ec = read_ec == bhttp::error::need_buffer ? error_code{} : finished(read_ec);
      if (ec) {
        keep_alive_ = false;
        co_return ec;
      }
      const std::size_t got = kReadBytes - parser_->get().body().size;
      if (got > 0) {
        co_return std::string_view(chunk_.get(), got);
      }
    }
  }

  void set_io_timeout(std::chrono::milliseconds timeout) override { timeout_ = timeout; }

  bool body_complete() const override { return parser_ && parser_->is_done(); }

  bool reusable() const override { return keep_alive_ && body_complete(); }

  void close() override {
    keep_alive_ = false;
    lowest(stream_).close();
  }

 private:
  // Ends the timed operation; an operation cancelled by the deadline reports a timeout. A read
  // that completes the response leaves the connection idle.
  error_code finished(error_code ec) {
    if (!ec && parser_ && parser_->is_done()) {
      deadline_.disarm();
    } else {
      deadline_.end();
    }
    return ec && deadline_.expired() ? error_code(beast::error::timeout) : ec;
  }

  Stream stream_;
  std::string authority_;
  std::string head_;
  beast::flat_buffer buffer_;
  alignas(std::max_align_t) std::byte arena_bytes_[1024]{};  // a typical response head fits
  std::pmr::monotonic_buffer_resource arena_{arena_bytes_, sizeof(arena_bytes_)};
  std::optional<ResponseParser> parser_;
  // What one read hands over: large enough for a burst of events in one piece. Left uninitialised,
  // so a slow stream that only ever fills its first page costs one page of memory, not four
  // (bench/gateway_memory.py).
  static constexpr std::size_t kReadBytes = std::size_t{16} << 10;
  std::unique_ptr<char[]> chunk_{new char[kReadBytes]};
  std::chrono::milliseconds timeout_{std::chrono::minutes(10)};
  IoDeadline deadline_;
  bool keep_alive_ = true;
};

ssl::context& client_tls_context(bool verify) {
  auto make = [](bool verify_peer) {
    ssl::context ctx(ssl::context::tls_client);
    ctx.set_default_verify_paths();
    ctx.set_verify_mode(verify_peer ? ssl::verify_peer : ssl::verify_none);
    return ctx;
  };
  static ssl::context verifying = make(true);
  static ssl::context trusting = make(false);
  return verify ? verifying : trusting;
}

}  // namespace

awaitable<result<std::unique_ptr<Connection>>> Connection::open(net::any_io_executor executor, const Url& url,
                                                                std::chrono::milliseconds timeout, TlsOptions tls) {
  tcp::resolver resolver(executor);
  auto [rec, endpoints] = co_await resolver.async_resolve(url.host, std::to_string(url.port), as_tuple);
  if (rec) {
    co_return rec;
  }
  beast::tcp_stream tcp_stream(executor);
  tcp_stream.expires_after(timeout);
  auto [cec, endpoint] = co_await tcp_stream.async_connect(endpoints, as_tuple);
  if (cec) {
    co_return cec;
  }
  error_code ignored;
  tcp_stream.socket().set_option(tcp::no_delay(true), ignored);
  if (!url.tls) {
    co_return std::make_unique<StreamConnection<beast::tcp_stream>>(std::move(tcp_stream), url.authority());
  }
  beast::ssl_stream<beast::tcp_stream> tls_stream(std::move(tcp_stream), client_tls_context(tls.verify_peer));
  if (!SSL_set_tlsext_host_name(tls_stream.native_handle(), url.host.c_str())) {
    co_return error_code(static_cast<int>(::ERR_get_error()), net::error::get_ssl_category());
  }
  if (tls.verify_peer) {
    tls_stream.set_verify_callback(ssl::host_name_verification(url.host));
  }
  tls_stream.next_layer().expires_after(timeout);
  auto [hec] = co_await tls_stream.async_handshake(ssl::stream_base::client, as_tuple);
  if (hec) {
    co_return hec;
  }
  co_return std::make_unique<StreamConnection<beast::ssl_stream<beast::tcp_stream>>>(std::move(tls_stream),
                                                                                     url.authority());
}

}  // namespace infergate::http
