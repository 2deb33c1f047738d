#include "http/send_batch.hpp"

#include <boost/asio/error.hpp>

#include "core/clock.hpp"
#include "http/write_now.hpp"

namespace infergate::http {

namespace net = boost::asio;
using net::detail::op_queue;
using net::detail::scheduler;
using net::detail::scheduler_operation;
using net::detail::scheduler_task;

namespace {

// The scheduler's task is a private member. An explicit instantiation may name it (access is not
// checked there), and hands it out through a friend function.
struct TaskMember {
  using type = scheduler_task* scheduler::*;
  friend type task_member(TaskMember);
};

template <class Tag, typename Tag::type Member>
struct Reveal {
  friend typename Tag::type task_member(Tag) { return Member; }
};

template struct Reveal<TaskMember, &scheduler::task_>;

}  // namespace

SendBatch& SendBatch::install(net::io_context& io) {
  return net::use_service<SendBatch>(io);
}

SendBatch* SendBatch::find(net::execution_context& context) {
  return net::has_service<SendBatch>(context) ? &net::use_service<SendBatch>(context) : nullptr;
}

SendBatch::SendBatch(net::execution_context& context)
    : execution_context_service_base<SendBatch>(context),
      scheduler_(net::use_service<scheduler>(context)),
      reactor_(net::use_service<net::detail::reactor>(context)) {
  // The reactor becomes the scheduler's task (and the task is queued) before the batch takes its
  // place; it would otherwise happen with the first socket, and the task would never run.
  reactor_.init_task();
  scheduler_.*task_member(TaskMember{}) = this;
}

void SendBatch::hold(detail::HeldSend* send) {
  scheduler_.work_started();
  held_.push(send);
  if (++held_count_ == kMostHeld) {
    op_queue<scheduler_operation> done;
    send_held(done);
    scheduler_.post_deferred_completions(done);
  }
}

void SendBatch::send_held(op_queue<scheduler_operation>& done) {
  while (!held_.empty()) {
    auto* send = static_cast<detail::HeldSend*>(held_.front());
    held_.pop();
    // Closed since: its descriptor may already belong to another socket.
    if (send->socket->is_open()) {
      send->sent = send_some(send->socket->native_handle(), send->buffers, send->ec);
    } else {
      send->ec = net::error::operation_aborted;
    }
    done.push(send);
  }
  held_count_ = 0;
}

void SendBatch::poll(long usec, op_queue<scheduler_operation>& ops) {
  op_queue<scheduler_operation> ready;
  if (usec == 0 || !busy_poll_.enabled()) {
    reactor_.run(usec, ready);
  } else {
    const std::int64_t start = monotonic_ns();
    if (!busy_poll_.wait([&] {
          reactor_.run(0, ready);
          return !ready.empty();
        })) {
      reactor_.run(usec, ready);
      busy_poll_.slept(monotonic_ns() - start);
    }
    busy_poll_.woke();
  }
  polled_ = true;
  int count = 0;
  while (!ready.empty()) {
    scheduler_operation* op = ready.front();
    ready.pop();
    ops.push(op);
    ++count;
  }
  holding_ = count > 1;
}

void SendBatch::run(long usec, op_queue<scheduler_operation>& ops) {
  if (held_.empty()) {
    poll(usec, ops);
    return;
  }
  send_held(ops);
  // The sends' completions are queued, so a poll now must not block.
  if (!polled_) {
    poll(0, ops);
    return;
  }
  polled_ = false;
}

void SendBatch::interrupt() {
  busy_poll_.interrupt();
  reactor_.interrupt();
}

void SendBatch::shutdown() {
  while (!held_.empty()) {
    scheduler_operation* send = held_.front();
    held_.pop();
    send->destroy();
  }
  held_count_ = 0;
}

}  // namespace infergate::http
