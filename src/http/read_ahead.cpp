#include "http/read_ahead.hpp"

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <optional>
#include <utility>

namespace infergate::http {

namespace net = boost::asio;
using boost::system::error_code;

struct ReadAhead::State {
  bool pending = false;  // the read is in flight
  bool arrived = false;  // it completed while nobody waited: `ec` and `bytes` are its result
  error_code ec;
  std::size_t bytes = 0;
  std::function<void()> on_close;  // while a handler watches
  // The session, waiting for it. In an optional because Boost 1.81's any_completion_handler
  // cannot be move-assigned (its operator= wraps the handler in itself, endlessly).
  std::optional<net::any_completion_handler<void(error_code, std::size_t)>> waiter;
};

// Completes the read: resumes the session if it waits, else keeps the result for it.
class ReadAhead::Done {
 public:
  explicit Done(std::shared_ptr<State> state) : state_(std::move(state)) {}
  Done(Done&&) = default;
  Done& operator=(Done&&) = delete;
  Done(const Done&) = delete;
  Done& operator=(const Done&) = delete;
  // Dropped without completing (its io_context destroyed first): the waiting session goes with
  // it, which would otherwise keep itself alive through the state it holds.
  ~Done() {
    if (state_) {
      state_->waiter.reset();
    }
  }

  void operator()(error_code ec, std::size_t bytes) {
    const std::shared_ptr<State> state = std::move(state_);
    state->pending = false;
    if (state->waiter) {
      auto waiter = std::move(*state->waiter);
      state->waiter.reset();
      waiter(ec, bytes);
      return;
    }
    state->arrived = true;
    state->ec = ec;
    state->bytes = bytes;
    if (ec && state->on_close) {
      auto on_close = std::move(state->on_close);
      on_close();  // end of stream or an error: the client is gone
    }
  }

 private:
  std::shared_ptr<State> state_;
};

ReadAhead::ReadAhead() : state_(std::make_shared<State>()) {}

void ReadAhead::start(net::ip::tcp::socket& socket, std::span<char> room) {
  state_->pending = true;
  socket.async_read_some(net::buffer(room.data(), room.size()), Done(state_));
}

bool ReadAhead::pending() const {
  return state_->pending;
}

bool ReadAhead::arrived() const {
  return state_->arrived;
}

error_code ReadAhead::error() const {
  return state_->ec;
}

std::size_t ReadAhead::take() {
  state_->arrived = false;
  return state_->bytes;
}

net::awaitable<std::tuple<error_code, std::size_t>> ReadAhead::wait() {
  constexpr auto as_tuple = net::as_tuple(net::use_awaitable);
  return net::async_initiate<decltype(as_tuple), void(error_code, std::size_t)>(
      [state = state_.get()](auto handler) { state->waiter.emplace(std::move(handler)); }, as_tuple);
}

void ReadAhead::watch(std::function<void()> on_close, const net::any_io_executor& executor) {
  if (state_->pending) {
    state_->on_close = std::move(on_close);
  } else if (state_->arrived && state_->ec) {  // gone before the handler looked
    net::post(executor, std::move(on_close));
  }
}

void ReadAhead::stop_watching() {
  state_->on_close = nullptr;
}

}  // namespace infergate::http
