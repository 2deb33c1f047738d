#include "http/client.hpp"

#include <openssl/ssl.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/as_tuple.hpp"
#include "core/text_writer.hpp"
#include "http/chunked_decoder.hpp"
#include "http/connect.hpp"
#include "http/header_lines.hpp"
#include "http/io_deadline.hpp"
#include "http/message_head.hpp"
#include "http/read_buffer.hpp"
#include "http/send_batch.hpp"
#include "http/socket_receive.hpp"
#include "http/write_now.hpp"

namespace infergate::http {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace ssl = boost::asio::ssl;
using boost::system::error_code;
using boost::system::result;
using net::awaitable;
using net::ip::tcp;

void ResponseHead::add_header(std::string_view name, std::string_view value) {
  const auto at = static_cast<std::uint32_t>(text_.size());
  text_.append(name).append(value);
  spans_.push_back(Span{at, static_cast<std::uint32_t>(name.size()), static_cast<std::uint32_t>(at + name.size()),
                        static_cast<std::uint32_t>(value.size())});
}

void ResponseHead::assign_headers(std::string_view text, std::span<const Header> fields) {
  text_.assign(text);  // a connection's head keeps its storage from one response to the next
  spans_.clear();
  const auto begin = reinterpret_cast<std::uintptr_t>(text.data());
  // Where `part` lies in the copy: at its place in `text`, or appended after it.
  const auto place = [&](std::string_view part) {
    const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(part.data()) - begin;
    if (part.data() != nullptr && at <= text.size() && part.size() <= text.size() - at) {
      return static_cast<std::uint32_t>(at);
    }
    const auto appended = static_cast<std::uint32_t>(text_.size());
    text_.append(part);
    return appended;
  };
  for (const Header& field : fields) {
    const std::uint32_t name_at = place(field.name);
    const std::uint32_t value_at = place(field.value);
    spans_.push_back(Span{name_at, static_cast<std::uint32_t>(field.name.size()), value_at,
                          static_cast<std::uint32_t>(field.value.size())});
  }
}

// Sizes first: the proxy looks up several headers an answer seldom has in every response head.
std::string_view ResponseHead::header(std::string_view name) const {
  for (const Span& s : spans_) {
    if (s.name_size == name.size() && iequals(std::string_view(text_.data() + s.name_at, s.name_size), name)) {
      return {text_.data() + s.value_at, s.value_size};
    }
  }
  return {};
}

namespace {

tcp::socket& lowest(tcp::socket& s) {
  return s;
}
tcp::socket& lowest(beast::ssl_stream<beast::tcp_stream>& s) {
  return s.next_layer().socket();
}

// A response head larger than this is not one an inference API sends.
constexpr std::size_t kMaxHeadBytes = std::size_t{64} << 10;
// What one read takes: large enough for a burst of stream events in one piece.
constexpr std::size_t kReadBytes = std::size_t{16} << 10;
// A request head's fixed text (its request line, Host and Content-Length without their values) is shorter.
constexpr std::size_t kHeadFrame = 64;

template <class Stream>
class StreamConnection final : public Connection {
 public:
  StreamConnection(Stream stream, std::string authority)
      : stream_(std::move(stream)), authority_(std::move(authority)), deadline_(lowest(stream_)) {
    if constexpr (kPlain) {
      reactor_ = &reactor_of(stream_);
      watch_peer_close(*reactor_, stream_);
      batch_ = SendBatch::find(net::query(stream_.get_executor(), net::execution::context));
    }
  }

  awaitable<error_code> request(std::string_view method, std::string_view target, std::span<const Header> headers,
                                std::span<const std::string_view> body) override {
    // What this frame holds is kept small (each resume touches it again): what only a step needs
    // lives in that step's function.
    std::span<net::const_buffer> left = begin_request(method, target, headers, body);
    error_code ec;
    if constexpr (kPlain) {  // at once when the socket takes it all, as it almost always does
      if (batch_ != nullptr && batch_->holding()) {
        std::size_t sent = 0;
        std::tie(ec, sent) = co_await batch_->async_send(stream_, left, as_tuple);
        left = drop_sent(left, sent);
      } else {
        left = write_now(stream_, left, ec);
      }
    }
    if (!ec && !left.empty()) {
      deadline_.begin(timeout_);
      std::tie(ec, std::ignore) = co_await net::async_write(stream_, left, as_tuple);
      ec = finished(ec);
    }
    // A server may answer before it has the whole body (a 413 for one too large) and close: the
    // answer, in the socket ahead of the reset, says more than the broken write. Plain TCP only:
    // a TLS stream is unusable after a failed write.
    const error_code write_error = std::exchange(ec, {});
    if (write_error && !(kPlain && cut_off(write_error))) {
      co_return write_error;
    }
    request_sent_ = !write_error;
    in_response_ = true;
    body_done_ = false;
    for (std::size_t scanned = 0;;) {
      if (take_head(scanned, ec)) {
        break;
      }
      const auto read = co_await read_more();
      if (const error_code failed = read_done(read)) {
        ec = failed;
        break;
      }
    }
    if (write_error) {
      keep_alive_ = false;  // the rest of the body is still owed on this connection
      co_return ec ? write_error : error_code{};
    }
    co_return ec;
  }

  bool request_sent() const override { return request_sent_; }

  const ResponseHead& head() const override { return response_head_; }

  awaitable<result<std::string_view>> read_body_some() override {
    buffer_.consume(handed_out_);  // the caller is done with the last piece
    handed_out_ = 0;
    while (in_response_ && !body_done_) {
      if (buffer_.size() > 0 && !failed_) {
        if (auto piece = take_piece()) {
          co_return *piece;
        }
        if (body_done_) {
          break;
        }
      }
      if (failed_) {  // at once, or after the piece decoded before it
        keep_alive_ = false;
        co_return failed_;
      }
      const auto read = co_await read_more();
      if (const error_code ec = read_done(read)) {
        if (ec == bhttp::error::end_of_stream && framing_ == BodyFraming::until_close) {
          body_done_ = true;  // the end of the connection is the end of this body
          break;
        }
        co_return ec == bhttp::error::end_of_stream ? error_code(bhttp::error::partial_message) : ec;
      }
    }
    co_return std::string_view{};
  }

  std::uint64_t socket_reads() const override { return socket_reads_; }

  void set_io_timeout(std::chrono::milliseconds timeout) override { timeout_ = timeout; }

  void keep_timer_armed() override { keep_timer_armed_ = true; }

  bool body_complete() const override { return !in_response_ || body_done_; }

  // Bytes left over after a response would be the start of one nobody asked for.
  bool reusable() const override { return keep_alive_ && body_complete() && buffer_.size() == handed_out_; }

  void close() override {
    keep_alive_ = false;
    error_code ignored;
    lowest(stream_).close(ignored);
  }

 private:
  // Writes the request's head and lists what goes out (head, then the body's pieces, not copied);
  // the last response is then over.
  std::span<net::const_buffer> begin_request(std::string_view method, std::string_view target,
                                             std::span<const Header> headers, std::span<const std::string_view> body) {
    request_sent_ = false;
    std::size_t length = 0;
    for (const std::string_view piece : body) {
      length += piece.size();
    }
    const std::size_t bound =
        method.size() + target.size() + authority_.size() + kHeadFrame + kDecimalBound + header_lines_bound(headers);
    head_.clear();
    append_written(head_, bound, [&](TextWriter& w) {
      w.text(method);
      w.put(' ');
      w.text(target);
      w.literal(" HTTP/1.1\r\nHost: ");
      w.text(authority_);
      w.literal("\r\n");
      write_header_lines(w, headers);
      w.literal("Content-Length: ");
      w.decimal(static_cast<std::int64_t>(length));
      w.literal("\r\n\r\n");
    });
    buffers_.assign({net::buffer(head_)});
    for (const std::string_view piece : body) {
      buffers_.push_back(net::buffer(piece));
    }
    head_request_ = method == "HEAD";
    in_response_ = false;
    buffer_.consume(handed_out_);
    handed_out_ = 0;
    return {buffers_.data(), buffers_.size()};
  }

  // The response head, once the buffer holds it: true when it was read (into response_head_) or
  // found wrong (`ec`), false when more bytes are needed. `scanned`: how far earlier calls looked.
  bool take_head(std::size_t& scanned, error_code& ec) {
    for (;;) {
      const std::string_view data(buffer_.data(), buffer_.size());
      error_code failed;
      const std::size_t end = take_response_head(data, scanned, head_request_, parsed_, failed);
      if (failed) {
        keep_alive_ = false;
        ec = failed;
        return true;
      }
      if (end == 0) {
        if (buffer_.size() >= kMaxHeadBytes) {
          keep_alive_ = false;
          ec = bhttp::error::header_limit;
          return true;
        }
        return false;
      }
      if (parsed_.status < 200 && parsed_.status != 101) {  // interim (100 Continue, 103): the real one follows
        buffer_.consume(end);
        scanned = 0;
        continue;
      }
      fill_head(parsed_, data.substr(0, end));
      buffer_.consume(end);
      keep_alive_ = parsed_.keep_alive;
      framing_ = parsed_.framing;
      remaining_ = parsed_.content_length;
      chunked_.reset();
      if (framing_ == BodyFraming::none) {
        complete_body();
      }
      return true;
    }
  }

  // `text`: the head as read, which `parsed`'s fields view.
  void fill_head(const MessageHead& parsed, std::string_view text) {
    response_head_.status = parsed.status;
    response_head_.keep_alive = parsed.keep_alive;
    response_head_.content_length.reset();
    if (parsed.framing == BodyFraming::length) {
      response_head_.content_length = parsed.content_length;
    }
    response_head_.assign_headers(text, std::span<const Header>(parsed.fields.data(), parsed.fields.size()));
  }

  // The body bytes in the buffer, as one piece handed out until the next call; nothing when they
  // were all framing (or the decoder failed: `failed_`).
  std::optional<std::string_view> take_piece() {
    char* data = buffer_.data();
    const std::size_t size = buffer_.size();
    switch (framing_) {
      case BodyFraming::length: {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, size));
        remaining_ -= n;
        handed_out_ = n;
        if (remaining_ == 0) {
          complete_body();
        }
        return std::string_view(data, n);
      }
      case BodyFraming::chunked: {
        const auto step = chunked_.decode(data, size, data);
        if (step.error) {
          // What was decoded before the bad framing is the body's: handed out first, the error
          // at the next call; the rest of the buffer is nothing to read.
          failed_ = step.error;
          if (step.produced == 0) {
            return std::nullopt;
          }
          handed_out_ = size;
          return std::string_view(data, step.produced);
        }
        if (chunked_.done()) {
          complete_body();
        }
        if (step.produced == 0) {
          buffer_.consume(step.consumed);
          return std::nullopt;
        }
        // The decoded bytes sit at the front of what was consumed: both go at the next call.
        handed_out_ = step.consumed;
        return std::string_view(data, step.produced);
      }
      case BodyFraming::until_close:
        handed_out_ = size;
        return std::string_view(data, size);
      case BodyFraming::none:
        break;
    }
    return std::nullopt;
  }

  void complete_body() {
    body_done_ = true;
    if (!keep_timer_armed_) {
      deadline_.disarm();
    }
  }

  // A read of what the peer sends next into the buffer, as an operation to co_await (not a
  // coroutine of its own: one frame less per read); its result goes to read_done().
  auto read_more() {
    const std::span<char> room = buffer_.prepare(kReadBytes);
    deadline_.begin(timeout_);
    ++socket_reads_;
    if constexpr (kPlain) {
      return async_receive_some(*reactor_, stream_, room, as_tuple);
    } else {
      return stream_.async_read_some(net::buffer(room.data(), room.size()), as_tuple);
    }
  }

  static bool cut_off(const error_code& ec) {
    return ec == net::error::connection_reset || ec == net::error::broken_pipe;
  }

  // Takes in what read_more() got; the end of the connection is end_of_stream.
  error_code read_done(const std::tuple<error_code, std::size_t>& read) {
    const auto& [ec, n] = read;
    if (ec == net::error::eof || (ec == ssl::error::stream_truncated && n == 0)) {
      deadline_.end();
      keep_alive_ = false;
      return bhttp::error::end_of_stream;
    }
    buffer_.commit(n);
    if (const error_code failed = finished(ec)) {
      keep_alive_ = false;
      return failed;
    }
    return {};
  }

  // Ends the timed operation; an operation cancelled by the deadline reports a timeout.
  error_code finished(error_code ec) {
    deadline_.end();
    return ec && deadline_.expired() ? error_code(beast::error::timeout) : ec;
  }

  static constexpr bool kPlain = std::is_same_v<Stream, tcp::socket>;

  Stream stream_;
  std::string authority_;
  // Plain TCP: its reads use socket_receive.hpp's receive.
  net::detail::reactor* reactor_ = nullptr;
  SendBatch* batch_ = nullptr;  // plain TCP: where requests wait for the end of the round, if anywhere
  std::string head_;
  boost::container::small_vector<net::const_buffer, 6> buffers_;  // the request: head_, then the body's pieces
  ResponseHead response_head_;                                    // read by request(), kept for head()
  // Left uninitialised, so a slow stream that only ever fills its first page costs one page of
  // memory, not four (bench/gateway_memory.py).
  ReadBuffer buffer_{kReadBytes};
  MessageHead parsed_;
  ChunkedDecoder chunked_;
  BodyFraming framing_ = BodyFraming::none;
  std::uint64_t remaining_ = 0;
  std::size_t handed_out_ = 0;  // buffer bytes behind the last piece, released at the next call
  std::uint64_t socket_reads_ = 0;
  error_code failed_;
  std::chrono::milliseconds timeout_{std::chrono::minutes(10)};
  IoDeadline deadline_;
  bool head_request_ = false;
  bool request_sent_ = false;
  bool in_response_ = false;
  bool body_done_ = false;
  bool keep_alive_ = true;
  bool keep_timer_armed_ = false;
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
  if (const error_code cec = co_await connect_each(tcp_stream, endpoints)) {
    co_return cec;
  }
  error_code ignored;
  tcp_stream.socket().set_option(tcp::no_delay(true), ignored);
  if (!url.tls) {
    tcp_stream.expires_never();
    co_return std::make_unique<StreamConnection<tcp::socket>>(tcp_stream.release_socket(), url.authority());
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
  tls_stream.next_layer().expires_never();  // the connection's own deadline times each operation
  co_return std::make_unique<StreamConnection<beast::ssl_stream<beast::tcp_stream>>>(std::move(tls_stream),
                                                                                     url.authority());
}

}  // namespace infergate::http
