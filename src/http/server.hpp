#pragma once
// A small HTTP/1.1 server: one coroutine per connection, keep-alive, limits on header time and body
// size, complete or chunked (streamed) responses (a stream to an HTTP/1.0 client is unframed and
// ended by closing the connection). Handlers see only this interface, so Beast stays
// out of every header that includes this one.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/system/error_code.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "http/chunk_pieces.hpp"
#include "http/header.hpp"
#include "http/server_limits.hpp"
#include "http/server_stats.hpp"

namespace infergate::http {

// One request and its response, as a handler sees it.
class Exchange {
 public:
  virtual ~Exchange() = default;

  // A HEAD request reads as GET, and the server leaves its response's body out (RFC 9110 section
  // 9.3.2): every route a GET reaches answers HEAD with the same head.
  [[nodiscard]] virtual std::string_view method() const = 0;
  [[nodiscard]] virtual std::string_view target() const = 0;
  // Value of the named header (case-insensitive), "" when absent.
  [[nodiscard]] virtual std::string_view header(std::string_view name) const = 0;
  [[nodiscard]] virtual std::string_view body() const = 0;
  // CLOCK_MONOTONIC ns at which the whole request had been read.
  [[nodiscard]] virtual std::int64_t received_ns() const = 0;

  virtual boost::asio::awaitable<boost::system::error_code> respond(int status, std::string_view content_type,
                                                                    std::string_view body,
                                                                    std::span<const Header> extra = {}) = 0;

  // A streamed response: the head with chunked transfer encoding, then each chunk as it is ready
  // (written at once, TCP_NODELAY), then the terminating chunk. begin_stream() only prepares the
  // head, which goes out with the first chunk, and `last` sends the terminating chunk in the same
  // write: one system call where a short response allows it.
  // With `content_length` (a body relayed whole, its length known from its source) the head says
  // so instead and the chunks are the body's bytes, unframed. A write that would pass the length
  // fails with message_size and sends nothing; a response that ends short of it (a `last` write
  // short of it, or none) is not finished, so the connection is closed and the client sees the
  // truncation. `extra_lines` are more fields already written as a head's lines, each "name:
  // value" and CRLF (the rate-limit headers, formatted in one piece).
  virtual void begin_stream(int status, std::string_view content_type, std::span<const Header> extra = {},
                            std::optional<std::uint64_t> content_length = std::nullopt,
                            std::string_view extra_lines = {}) = 0;
  virtual boost::asio::awaitable<boost::system::error_code> write_chunk(std::string_view data, bool last = false) = 0;
  // One chunk made of `pieces` (at most kMaxChunkPieces), gathered by the write, not copied.
  virtual boost::asio::awaitable<boost::system::error_code> write_chunk_gathered(
      std::span<const std::string_view> pieces, bool last = false) = 0;
  virtual boost::asio::awaitable<boost::system::error_code> end_stream() = 0;

  // Aborts the connection with a TCP reset, mid-response or not (the simulator's fault injection).
  // Nothing more can be written.
  virtual void reset() = 0;

  // Calls `on_close` (on this connection's thread) if the client closes or the connection fails
  // before stop_watching(); never after it. `on_close` cancels the work itself (closes an upstream
  // connection, wakes a waiting coroutine). The watch is the read of the client's next request,
  // started as soon as this one was read: no system call or coroutine of its own. Bytes of a
  // further request end the watch: the client is evidently still there.
  virtual void watch_peer(std::function<void()> on_close) = 0;
  virtual void stop_watching() = 0;
};

// Watches for the client leaving for as long as it lives, so that no path out of a handler can
// leave `on_close` pointing at state that is gone.
class PeerWatchScope {
 public:
  PeerWatchScope(Exchange& ex, std::function<void()> on_close) : ex_(ex) { ex_.watch_peer(std::move(on_close)); }
  ~PeerWatchScope() { ex_.stop_watching(); }
  PeerWatchScope(const PeerWatchScope&) = delete;
  PeerWatchScope& operator=(const PeerWatchScope&) = delete;

 private:
  Exchange& ex_;
};

using Handler = std::function<boost::asio::awaitable<void>(Exchange&)>;

class Server {
 public:
  // `stats`, when given, must outlive the server; several servers may share one.
  Server(boost::asio::io_context& io, Handler handler, ServerLimits limits = {}, ServerStats* stats = nullptr);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds, listens and starts accepting on the io_context; returns the bound port (for port 0).
  // With reuse_port, several servers (one per thread) share the port and the kernel spreads
  // connections over them. Throws std::system_error when the address cannot be bound.
  std::uint16_t listen(std::string_view host, std::uint16_t port, bool reuse_port = false);

  // Stops accepting. Open connections end when the io_context stops.
  void close();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace infergate::http
