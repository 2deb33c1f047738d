#pragma once
// Sends held to the end of the event-loop round: every receive of a round first, then every send
// (haproxy's order). Sent one at a time, as soon as each response is ready, they reach the peers
// spread out, so a peer that keeps up sleeps between them and is woken for each one: on a machine
// whose cores are shared, that is a context switch per message on the peer's core and a wake-up
// paid by the sender. Sent together, they reach a peer that is still busy with the first.
//
// The batch wraps the io_context's reactor as the task its scheduler runs between handlers: the
// task first sends what is held, then polls epoll, busy-polling before it would sleep when asked
// to (busy_poll.hpp). It is built on Asio's detail interface (the scheduler's task, its operations
// and work count), which Debian 12's Boost 1.81 pins.
#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/detail/op_queue.hpp>
#include <boost/asio/detail/reactor.hpp>
#include <boost/asio/detail/scheduler.hpp>
#include <boost/asio/detail/scheduler_operation.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/recycling_allocator.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstddef>
#include <span>
#include <utility>

#include "http/busy_poll.hpp"

namespace infergate::http {

namespace detail {

// A send waiting for the end of its round; the batch fills in `ec` and `sent`. Whoever waits for
// it keeps the socket alive until it completes, but may close it before.
struct HeldSend : boost::asio::detail::scheduler_operation {
  HeldSend(func_type finish, boost::asio::ip::tcp::socket& on, std::span<const boost::asio::const_buffer> what)
      : scheduler_operation(finish), socket(&on), buffers(what) {}
  boost::asio::ip::tcp::socket* socket;
  std::span<const boost::asio::const_buffer> buffers;
  boost::system::error_code ec;
  std::size_t sent = 0;
};

template <class Handler>
class SendOp : public HeldSend {
 public:
  using Allocator = boost::asio::recycling_allocator<SendOp>;

  SendOp(boost::asio::ip::tcp::socket& socket, std::span<const boost::asio::const_buffer> buffers, Handler handler)
      : HeldSend(&SendOp::finish, socket, buffers), handler_(std::move(handler)) {}
  SendOp(const SendOp&) = delete;
  SendOp& operator=(const SendOp&) = delete;
  ~SendOp() = default;

 private:
  // `io_context` null: the io_context is going away with the send held; the handler is only
  // destroyed.
  static void finish(void* io_context, boost::asio::detail::scheduler_operation* base,
                     const boost::system::error_code& /*unused*/, std::size_t /*unused*/) {
    auto* self = static_cast<SendOp*>(base);
    Handler handler(std::move(self->handler_));
    const boost::system::error_code ec = self->ec;
    const std::size_t sent = self->sent;
    self->~SendOp();
    Allocator().deallocate(self, 1);
    if (io_context != nullptr) {
      std::move(handler)(ec, sent);
    }
  }

  Handler handler_;
};

}  // namespace detail

class SendBatch final : public boost::asio::detail::execution_context_service_base<SendBatch>,
                        private boost::asio::detail::scheduler_task {
 public:
  // Holds sends on `io` from now on. `io` must be run by one thread only, and not running yet.
  static SendBatch& install(boost::asio::io_context& io);
  // The batch installed on `context`, or nullptr.
  static SendBatch* find(boost::asio::execution_context& context);

  explicit SendBatch(boost::asio::execution_context& context);
  SendBatch(const SendBatch&) = delete;
  SendBatch& operator=(const SendBatch&) = delete;
  ~SendBatch() override = default;

  // Before the thread sleeps in epoll it busy-polls for up to `longest` (busy_poll.hpp); zero
  // (the default): it sleeps at once.
  void busy_poll(std::chrono::nanoseconds longest) { busy_poll_.set_longest(longest); }
  [[nodiscard]] const BusyPoll& busy_poll() const { return busy_poll_; }

  // Whether sends wait for the end of this round: only when the last poll of epoll found more than
  // one thing to do, as it does under load. A round of one has nothing to gather a send with, and
  // holding it would only cost a suspension.
  [[nodiscard]] bool holding() const { return holding_; }

  // One non-blocking send of `buffers` on `socket` (both must outlive it), at the end of this
  // round; completes with the error and the bytes sent (0 when the socket would block), or with
  // operation_aborted when the socket was closed first.
  template <class Token>
  auto async_send(boost::asio::ip::tcp::socket& socket, std::span<const boost::asio::const_buffer> buffers,
                  Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
        [this, &socket, buffers](auto handler) {
          using Op = detail::SendOp<decltype(handler)>;
          Op* op = typename Op::Allocator().allocate(1);
          new (op) Op(socket, buffers, std::move(handler));
          hold(op);
        },
        token);
  }

 private:
  void hold(detail::HeldSend* send);
  // Sends everything held, and queues the completions in `done`.
  void send_held(boost::asio::detail::op_queue<boost::asio::detail::scheduler_operation>& done);
  // Polls epoll (blocking for up to `usec`, -1: no limit) and notes whether to hold sends.
  void poll(long usec, boost::asio::detail::op_queue<boost::asio::detail::scheduler_operation>& ops);
  void run(long usec, boost::asio::detail::op_queue<boost::asio::detail::scheduler_operation>& ops) override;
  void interrupt() override;
  void shutdown() override;

  boost::asio::detail::scheduler& scheduler_;
  boost::asio::detail::reactor& reactor_;
  // Held sends go out together once there are this many, not only at the round's end: each one
  // waits for the handlers after it, and a response that takes several reads waits that long
  // for each.
  static constexpr int kMostHeld = 8;
  boost::asio::detail::op_queue<boost::asio::detail::scheduler_operation> held_;
  int held_count_ = 0;
  // Whether the last run polled epoll: a run that sends skips the poll only when the one before
  // it polled, so handlers that send again and again cannot keep epoll from being polled.
  bool polled_ = true;
  bool holding_ = false;
  BusyPoll busy_poll_;
};

}  // namespace infergate::http
