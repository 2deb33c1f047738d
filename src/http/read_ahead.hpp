#pragma once
// Every read of a server connection's requests, and the watch for its client leaving.
//
// The read of the next request starts as soon as the current request is in and stays pending
// while its handler works, so an end of stream or an error while a handler watches calls that
// handler's on_close: the next request needs the read anyway, so the watch costs nothing of its
// own (a peeking receive and its cancellation cost a system call and two completions per request).
//
// Its receives tell Asio's reactor when they leave the socket empty (socket_receive.hpp), so the
// read of the next request on a kept-alive connection waits for readiness instead of first
// failing a receive: one system call per request.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <tuple>

namespace infergate::http {

class ReadAhead {
 public:
  ReadAhead();

  // Starts reading from `socket` (always the same one) into `room`, which must stay valid until
  // the read completes.
  void start(boost::asio::ip::tcp::socket& socket, std::span<char> room);
  // The read is in flight.
  [[nodiscard]] bool pending() const;

  // The read completed while nobody waited for it: error() and take() give its result.
  [[nodiscard]] bool arrived() const;
  [[nodiscard]] boost::system::error_code error() const;
  // The bytes it read; it has then not arrived any more.
  std::size_t take();

  // Suspends until the pending read completes, with its result.
  boost::asio::awaitable<std::tuple<boost::system::error_code, std::size_t>> wait();

  // While a handler works: `on_close` runs if the client leaves (an end of stream or an error), on
  // `executor` at once if it has left already; never after stop_watching(). Bytes that arrive
  // are the client's next request: it is evidently still there.
  void watch(std::function<void()> on_close, const boost::asio::any_io_executor& executor);
  void stop_watching();

 private:
  struct State;
  class Receive;
  static void complete(State& state, boost::system::error_code ec, std::size_t bytes);
  std::shared_ptr<State> state_;
};

}  // namespace infergate::http
