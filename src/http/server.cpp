#include "http/server.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/status.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <tuple>
#include <vector>

#include "core/as_tuple.hpp"
#include "core/clock.hpp"
#include "core/text_writer.hpp"
#include "http/header_lines.hpp"
#include "http/io_deadline.hpp"
#include "http/out_of_resources.hpp"
#include "http/read_ahead.hpp"
#include "http/request_reader.hpp"
#include "http/send_batch.hpp"
#include "http/write_now.hpp"

namespace infergate::http {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using boost::system::error_code;
using net::awaitable;
using net::ip::tcp;

namespace {

// 4 KiB holds a typical request in one read while keeping what every open connection costs small
// (the buffer grows when a request needs more).
constexpr std::size_t kReadBufferBytes = std::size_t{4} << 10;

// A response head's fixed text (status line, Content-Type, framing and Connection without their
// values) is shorter.
constexpr std::size_t kHeadFrame = 128;

std::string_view reason(int status) {
  return bhttp::obsolete_reason(static_cast<bhttp::status>(status));
}

std::string error_body(std::string_view message, std::string_view code) {
  return fmt::format(R"({{"error":{{"message":"{}","type":"invalid_request_error","param":null,"code":"{}"}}}})",
                     message, code);
}

// How long the server stops accepting after an accept failed for want of descriptors or memory
// (nginx waits 500 ms).
constexpr std::chrono::milliseconds kAcceptPause{100};

// After refusing a request whose body may still be on its way, the server reads and drops what
// comes for this long at most, and gives up after a quiet spell of kLingerQuiet (nginx's
// lingering_time and lingering_timeout). Closing at once with unread bytes makes the kernel send a
// reset, and a client still writing then sees "connection reset" or "broken pipe" instead of the
// 413 that names the limit.
constexpr std::chrono::milliseconds kLingerTime{30'000};
constexpr std::chrono::milliseconds kLingerQuiet{5'000};
constexpr std::size_t kLingerReadBytes = std::size_t{16} << 10;

// The least room the read ahead gets: a typical request head and body.
constexpr std::size_t kReadAheadBytes = 1024;

class SessionExchange final : public Exchange {
 public:
  // `head` is the session's buffer for response heads, reused from one request to the next.
  // `batch`: where sends wait for the end of the round, if anywhere.
  // `deadline`: the session's, idle while the handler works, bounds each write the socket does not
  // take at once to `send_timeout`.
  SessionExchange(tcp::socket& socket, SendBatch* batch, const RequestReader& request, std::string& head,
                  ReadAhead& ahead, IoDeadline& deadline, std::chrono::milliseconds send_timeout,
                  std::int64_t received_ns)
      : socket_(socket),
        batch_(batch),
        request_(request),
        head_(head),
        received_ns_(received_ns),
        keep_alive_(request.head().keep_alive),
        chunks_understood_(request.head().minor_version >= 1),
        head_only_(request.head().method == "HEAD"),
        ahead_(ahead),
        deadline_(deadline),
        send_timeout_(send_timeout) {}

  // A HEAD request is served as a GET whose body is left out (RFC 9110 section 9.3.2), so that every
  // route a GET reaches answers HEAD too, with the same head.
  std::string_view method() const override { return head_only_ ? "GET" : request_.head().method; }
  std::string_view target() const override { return request_.head().target; }
  std::string_view header(std::string_view name) const override { return request_.head().header(name); }
  std::string_view body() const override { return request_.body(); }
  std::int64_t received_ns() const override { return received_ns_; }

  awaitable<error_code> respond(int status, std::string_view content_type, std::string_view body,
                                std::span<const Header> extra) override {
    started_ = true;
    write_head(status, content_type, extra, body.size());
    std::array<net::const_buffer, 2> buffers{net::buffer(head_), net::buffer(body)};
    co_return co_await write(std::span(buffers.data(), head_only_ ? 1 : 2), true);
  }

  void begin_stream(int status, std::string_view content_type, std::span<const Header> extra,
                    std::optional<std::uint64_t> content_length, std::string_view extra_lines) override {
    started_ = true;
    // An HTTP/1.0 client does not know chunked framing (RFC 9112 section 6.1): its stream is the
    // bare body, and closing the connection ends it.
    unframed_ = !content_length && !chunks_understood_;
    keep_alive_ = keep_alive_ && !unframed_;
    write_head(status, content_type, extra, content_length, extra_lines);
    length_left_ = head_only_ ? std::nullopt : content_length;
    head_pending_ = true;
  }

  // Both prepare the buffers at once; the write itself starts when awaited.
  awaitable<error_code> write_chunk(std::string_view data, bool last) override {
    return write_pieces({&data, 1}, last);
  }

  awaitable<error_code> write_chunk_gathered(std::span<const std::string_view> pieces, bool last) override {
    return write_pieces(pieces, last);
  }

  awaitable<error_code> end_stream() override { co_return co_await write_chunk({}, true); }

  void reset() override {
    error_code ignored;
    socket_.set_option(net::socket_base::linger(true, 0), ignored);  // close() then sends RST
    socket_.close(ignored);
    finished_ = false;
  }

  void watch_peer(std::function<void()> on_close) override {
    ahead_.watch(std::move(on_close), socket_.get_executor());
  }

  void stop_watching() override { ahead_.stop_watching(); }

  [[nodiscard]] bool started() const { return started_; }
  [[nodiscard]] bool finished() const { return finished_; }
  // Whether the connection may carry the next request after this response.
  [[nodiscard]] bool keep_alive() const { return keep_alive_; }

 private:
  // The response head, into head_: with a Content-Length, or chunked without one (or neither, when
  // the body is unframed).
  void write_head(int status, std::string_view content_type, std::span<const Header> extra,
                  std::optional<std::uint64_t> content_length, std::string_view extra_lines = {}) {
    const std::string_view phrase = reason(status);
    const std::size_t bound =  // two numbers: the status and the length
        kHeadFrame + 2 * kDecimalBound + phrase.size() + content_type.size() + header_lines_bound(extra) +
        extra_lines.size();
    head_.clear();
    append_written(head_, bound, [&](TextWriter& w) {
      w.literal("HTTP/1.1 ");
      w.decimal(status);
      w.put(' ');
      w.text(phrase);
      w.literal("\r\nContent-Type: ");
      w.text(content_type);
      w.literal("\r\n");
      write_header_lines(w, extra);
      w.text(extra_lines);
      if (!keep_alive_) {
        w.literal("Connection: close\r\n");
      }
      if (content_length) {
        w.literal("Content-Length: ");
        w.decimal(static_cast<std::int64_t>(*content_length));
        w.literal("\r\n\r\n");
      } else if (unframed_) {
        w.literal("Cache-Control: no-cache\r\n\r\n");
      } else {
        w.literal("Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n");
      }
    });
  }

  // The body's next bytes, `pieces`, after the head if it has not gone yet: as one chunk (and the
  // terminating chunk when `last`) or, when the head announced a length, as they are.
  awaitable<error_code> write_pieces(std::span<const std::string_view> pieces, bool last) {
    if (head_only_) {
      return write_head_only(last);
    }
    std::uint64_t size = 0;
    for (const std::string_view piece : pieces) {
      size += piece.size();
    }
    if (length_left_) {
      if (size > *length_left_) {
        // Bytes past the announced length would be read as the start of the next response.
        return ready(net::error::message_size);
      }
      *length_left_ -= size;
    }
    const std::size_t count = prepare(pieces, size, last);
    if (count == 0) {  // nothing to send: an announced length's end, its bytes all gone before
      if (last) {
        finished_ = length_met();
      }
      return ready({});
    }
    return write(std::span(chunk_buffers_.data(), count), last);
  }

  static awaitable<error_code> ready(error_code ec) { co_return ec; }

  // A HEAD request's stream: its head with the first write, then nothing.
  awaitable<error_code> write_head_only(bool last) {
    if (!head_pending_) {
      finished_ = finished_ || last;
      return ready({});
    }
    chunk_buffers_[0] = net::buffer(head_);
    return write(std::span(chunk_buffers_.data(), 1), last);
  }

  // Whether the body has had every byte its head announced (a chunked one always has).
  [[nodiscard]] bool length_met() const { return !length_left_ || *length_left_ == 0; }

  // `pieces` (`size` bytes in all) in chunk_buffers_, after the head if it has not gone yet, in a
  // chunk of their own unless the head announced a length; returns how many buffers that takes.
  // The framing travels in as few buffers as it can (each costs the kernel a copy of its own): the
  // first chunk's size line after the head, the last chunk's CRLF before the terminating chunk.
  std::size_t prepare(std::span<const std::string_view> pieces, std::uint64_t size, bool last) {
    std::size_t count = 0;
    const bool chunked = !length_left_ && !unframed_;
    const bool framed = chunked && size != 0;  // an empty chunk would end the body
    std::string_view size_line;
    if (framed) {
      auto* end = std::to_chars(size_line_.data(), size_line_.data() + 16, size, 16).ptr;
      *end++ = '\r';
      *end++ = '\n';
      size_line = {size_line_.data(), static_cast<std::size_t>(end - size_line_.data())};
    }
    if (head_pending_) {
      head_.append(size_line);
      chunk_buffers_[count++] = net::buffer(head_);
    } else if (framed) {
      chunk_buffers_[count++] = net::buffer(size_line);
    }
    for (const std::string_view piece : pieces) {
      if (!piece.empty()) {
        chunk_buffers_[count++] = net::buffer(piece);
      }
    }
    constexpr std::string_view kEnd = "\r\n0\r\n\r\n";  // a chunk's CRLF, then the terminating chunk
    if (framed) {
      chunk_buffers_[count++] = net::buffer(last ? kEnd : kEnd.substr(0, 2));
    } else if (chunked && last) {
      chunk_buffers_[count++] = net::buffer(kEnd.substr(2));
    }
    return count;
  }

  // Writes all of `buffers` (rewriting them), at once when the socket takes them; `last`: they
  // end the response.
  awaitable<error_code> write(std::span<net::const_buffer> buffers, bool last) {
    error_code ec;
    std::span<net::const_buffer> left;
    if (batch_ != nullptr && batch_->holding()) {
      std::size_t sent = 0;
      std::tie(ec, sent) = co_await batch_->async_send(socket_, buffers, as_tuple);
      left = drop_sent(buffers, sent);
    } else {
      left = write_now(socket_, buffers, ec);
    }
    if (!ec && !left.empty()) {
      deadline_.begin(send_timeout_);
      std::tie(ec, std::ignore) = co_await net::async_write(socket_, left, as_tuple);
      deadline_.end();
      if (ec && deadline_.expired()) {
        ec = beast::error::timeout;
      }
    }
    head_pending_ = false;
    if (last) {
      finished_ = !ec && length_met();
    }
    co_return ec;
  }

  tcp::socket& socket_;
  SendBatch* batch_;
  const RequestReader& request_;
  std::string& head_;
  std::int64_t received_ns_;
  bool keep_alive_;
  const bool chunks_understood_;
  const bool head_only_;   // a HEAD request: the response's head, never its body
  bool unframed_ = false;  // a stream without a length, to a client that cannot take chunks
  bool started_ = false;
  bool finished_ = false;
  bool head_pending_ = false;
  std::optional<std::uint64_t> length_left_;  // of a body whose length the head announced
  ReadAhead& ahead_;
  IoDeadline& deadline_;
  std::chrono::milliseconds send_timeout_;
  std::array<char, 24> size_line_{};
  // The head or a size line, the pieces, the chunk's end.
  std::array<net::const_buffer, 2 + kMaxChunkPieces> chunk_buffers_;
};

// Whether the error went out whole within `send_timeout`.
awaitable<bool> send_plain_error(tcp::socket& socket, IoDeadline& deadline, std::chrono::milliseconds send_timeout,
                                 int status, std::string_view message, std::string_view code) {
  const std::string body = error_body(message, code);
  const std::string response = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n"
      "Connection: close\r\n\r\n{}",
      status, reason(status), body.size(), body);
  deadline.begin(send_timeout);
  const auto [ec, n] = co_await net::async_write(socket, net::buffer(response), as_tuple);
  deadline.end();
  co_return !ec;
}

// Reads and drops what the client still sends after its request was refused, until it closes or
// the linger's limits pass (kLingerTime), with nothing more to send (the client's reads end).
awaitable<void> linger(tcp::socket& socket, IoDeadline& deadline) {
  error_code ec;
  socket.shutdown(tcp::socket::shutdown_send, ec);
  const std::int64_t until_ns = coarse_deadline_ns(kLingerTime);
  std::vector<char> sink(kLingerReadBytes);
  while (!ec) {
    deadline.begin_until(std::min(until_ns, coarse_deadline_ns(kLingerQuiet)));
    std::tie(ec, std::ignore) = co_await socket.async_read_some(net::buffer(sink), as_tuple);
    deadline.end();
  }
}

}  // namespace

struct Server::Impl : std::enable_shared_from_this<Server::Impl> {
  Impl(net::io_context& io, Handler h, ServerLimits l, ServerStats* s)
      : acceptor(io), batch(SendBatch::find(io)), handler(std::move(h)), limits(l), stats(s) {}

  awaitable<void> accept_loop() {
    auto self = shared_from_this();
    std::int64_t failed = 0;  // accepts in a row that failed for want of descriptors or memory
    for (;;) {
      auto [ec, socket] = co_await acceptor.async_accept(as_tuple);
      if (ec && (ec == net::error::operation_aborted || !acceptor.is_open())) {
        co_return;
      }
      if (ec && out_of_resources(ec)) {
        // The connection stays queued and the listening socket readable, so trying again at once
        // would spin (and log) until a descriptor frees up; the open connections go on meanwhile.
        if (stats != nullptr) {
          stats->accepts_out_of_resources.fetch_add(1, std::memory_order_relaxed);
        }
        if (failed++ == 0) {
          spdlog::warn("accept failed: {}; trying again every {} ms (raise the descriptor limit, ulimit -n)",
                       ec.message(), kAcceptPause.count());
        }
        net::steady_timer pause(acceptor.get_executor(), kAcceptPause);
        co_await pause.async_wait(as_tuple);
        continue;
      }
      if (ec) {
        spdlog::warn("accept failed: {}", ec.message());
        continue;
      }
      if (failed > 0) {
        spdlog::info("accepting again after {} failed attempts", failed);
        failed = 0;
      }
      socket.set_option(tcp::no_delay(true), ec);
      net::co_spawn(acceptor.get_executor(), session(std::move(socket)), net::detached);
    }
  }

  awaitable<void> session(tcp::socket socket) {
    auto self = shared_from_this();
    RequestReader reader(limits.max_header_bytes, limits.max_body_bytes, kReadBufferBytes);
    // Kept armed between requests: the next request's reads only move it (no timer system call).
    IoDeadline deadline(socket);
    ReadAhead ahead;
    std::string head;
    for (;;) {
      std::int64_t deadline_ns = coarse_deadline_ns(limits.header_timeout);
      error_code ec;
      bool reading_body = false;
      RequestReader::Status status = RequestReader::Status::need_more;
      while ((status = reader.advance()) == RequestReader::Status::need_more) {
        if (reader.head_ready() && !reading_body) {
          reading_body = true;
          deadline_ns = coarse_deadline_ns(limits.body_timeout);
          if (reader.expect_continue() && reader.head().minor_version >= 1) {  // never to HTTP/1.0
            co_await net::async_write(socket, net::buffer("HTTP/1.1 100 Continue\r\n\r\n", 25), as_tuple);
          }
        }
        if (ahead.arrived()) {  // what the read ahead got while the last handler worked: an error
          ec = ahead.error();
          ahead.take();
          break;
        }
        if (!ahead.pending()) {
          ahead.start(socket, reader.prepare());
        }
        deadline.begin_until(deadline_ns);
        const auto [read_ec, n] = co_await ahead.wait();
        deadline.end();
        if (read_ec) {
          ec = read_ec;
          break;
        }
        reader.commit(n);
      }
      if (status == RequestReader::Status::failed) {
        ec = reader.error();
      }
      if (ec) {
        if (co_await reject(socket, deadline, reader.got_some(), deadline.expired() ? beast::error::timeout : ec) &&
            !ahead.pending()) {
          co_await linger(socket, deadline);
        }
        break;
      }
      if (!reader.pipelined()) {
        ahead.start(socket, reader.spare(kReadAheadBytes));
      }
      SessionExchange exchange(socket, batch, reader, head, ahead, deadline, limits.send_timeout, monotonic_ns());
      bool failed = false;
      try {
        co_await handler(exchange);
      } catch (const std::exception& e) {
        spdlog::error("handler failed on {} {}: {}", reader.head().method, reader.head().target, e.what());
        failed = true;
      }
      if (failed && !exchange.started()) {
        co_await exchange.respond(500, "application/json", error_body("internal error", "internal_error"), {});
      }
      if (!exchange.finished() || !exchange.keep_alive()) {
        break;
      }
      if (ahead.arrived() && !ahead.error()) {
        reader.commit(ahead.take());
      }
      reader.next(ahead.pending());
    }
    error_code ignored;
    socket.shutdown(tcp::socket::shutdown_send, ignored);
    socket.close(ignored);
  }

  // Answers a request that cannot be read with the error that says why, if any. True when the
  // answer went out and the client may still be sending what it was answered before reading (a
  // body over the limit, or more of a head): then the connection lingers before it closes.
  awaitable<bool> reject(tcp::socket& socket, IoDeadline& deadline, bool got_some, error_code ec) {
    const auto send = [&](int status, std::string_view message, std::string_view code) {
      return send_plain_error(socket, deadline, limits.send_timeout, status, message, code);
    };
    if (ec == beast::error::timeout) {
      if (got_some) {
        co_await send(408, "the request was not received in time", "request_timeout");
      }
      co_return false;  // a client too slow to finish its request is not waited for again
    }
    if (ec == bhttp::error::body_limit) {
      const std::string message =
          fmt::format("request body is larger than the limit of {} bytes", limits.max_body_bytes);
      co_return co_await send(413, message, "request_too_large");
    }
    if (ec == bhttp::error::header_limit) {
      co_return co_await send(431, "request headers are too large", "headers_too_large");
    }
    if (ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category()) {
      const std::string message = fmt::format("malformed HTTP request: {}", ec.message());
      co_return co_await send(400, message, "bad_request");
    }
    co_return false;
  }

  tcp::acceptor acceptor;
  SendBatch* batch;
  Handler handler;
  ServerLimits limits;
  ServerStats* stats;
};

Server::Server(net::io_context& io, Handler handler, ServerLimits limits, ServerStats* stats)
    : impl_(std::make_shared<Impl>(io, std::move(handler), limits, stats)) {}

Server::~Server() {
  close();
}

std::uint16_t Server::listen(std::string_view host, std::uint16_t port, bool reuse_port) {
  const tcp::endpoint endpoint(net::ip::make_address(std::string(host)), port);
  auto& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol());
  acceptor.set_option(net::socket_base::reuse_address(true));
  if (reuse_port) {
    acceptor.set_option(net::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>(true));
  }
  acceptor.bind(endpoint);
  acceptor.listen(net::socket_base::max_listen_connections);
  net::co_spawn(acceptor.get_executor(), impl_->accept_loop(), net::detached);
  return acceptor.local_endpoint().port();
}

void Server::close() {
  error_code ignored;
  impl_->acceptor.close(ignored);
}

}  // namespace infergate::http
