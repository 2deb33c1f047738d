#include "http/socket_receive.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <boost/asio/detail/epoll_reactor.hpp>
#include <boost/asio/detail/scheduler_operation.hpp>
#include <boost/asio/error.hpp>

#include <cerrno>
#include <cstdint>
#include <type_traits>

namespace infergate::http {

namespace net = boost::asio;
using boost::system::error_code;
using net::detail::epoll_reactor;
using net::detail::reactor;
using net::detail::reactor_op;
using net::detail::scheduler_operation;

static_assert(std::is_same_v<reactor, epoll_reactor>, "these receives read what Asio's epoll reactor keeps");

namespace {

// Asio keeps a socket's reactor registration in a protected member; a pointer to that member,
// formed in a derived class, reaches it on any socket.
struct SocketInternals : net::ip::tcp::socket {
  static Registration& registration(net::ip::tcp::socket& socket) {
    constexpr auto impl = &SocketInternals::impl_;
    return (socket.*impl).get_implementation().reactor_data_;
  }
};

// The reactor keeps the rest in private members: its epoll descriptor, a registration's interest
// set, and the events epoll last reported for it (a registration is a scheduler operation, whose
// result field carries them to the reads it performs). An explicit instantiation may name private
// members, and the friend function it defines hands out the member pointer.
template <class Tag, typename Tag::type Member>
struct Expose {
  friend typename Tag::type member(Tag /*unused*/) { return Member; }
};
struct EpollFd {
  using type = int epoll_reactor::*;
  friend type member(EpollFd);
};
struct Interest {
  using type = std::uint32_t epoll_reactor::descriptor_state::*;
  friend type member(Interest);
};
struct Reported {
  using type = unsigned int scheduler_operation::*;
  friend type member(Reported);
};
template struct Expose<EpollFd, &epoll_reactor::epoll_fd_>;
template struct Expose<Interest, &epoll_reactor::descriptor_state::registered_events_>;
template struct Expose<Reported, &scheduler_operation::task_result_>;

unsigned int& reported(Registration registration) {
  // The registration's base class is private; only this cast may name it.
  auto* op = (scheduler_operation*)registration;  // NOLINT(google-readability-casting)
  return op->*member(Reported{});
}

// A short receive emptied the socket, unless an end of stream or an error came with the bytes it
// took: no further event will come for it, and epoll has reported it, where the registration asks
// for EPOLLRDHUP (without it a receive cannot tell, and reports nothing).
bool emptied(Registration registration) {
  constexpr std::uint32_t kEnded = EPOLLRDHUP | EPOLLHUP | EPOLLERR;
  return registration != nullptr && (registration->*member(Interest{}) & EPOLLRDHUP) != 0 &&
         (reported(registration) & kEnded) == 0;
}

}  // namespace

Registration registration_of(net::ip::tcp::socket& socket) {
  return SocketInternals::registration(socket);
}

bool watch_peer_close(reactor& io_reactor, net::ip::tcp::socket& socket) {
  Registration registration = registration_of(socket);
  if (registration == nullptr) {
    return false;
  }
  std::uint32_t& interest = registration->*member(Interest{});
  if ((interest & EPOLLIN) == 0) {
    return false;  // not registered for reads
  }
  epoll_event ev{};
  ev.events = interest | EPOLLRDHUP;
  ev.data.ptr = registration;
  if (::epoll_ctl(io_reactor.*member(EpollFd{}), EPOLL_CTL_MOD, socket.native_handle(), &ev) != 0) {
    return false;
  }
  interest = ev.events;  // the reactor's own changes of the registration keep it
  // A registration is reused after its socket closed, with what epoll last reported for that one
  // (an end of stream, as often as not). What this socket holds, epoll reports afresh: the change
  // above queues an event if it is readable.
  reported(registration) = 0;
  return true;
}

reactor_op::status receive_once(int fd, std::span<char> room, Registration registration, error_code& ec,
                                std::size_t& bytes) {
  const ssize_t n = ::recv(fd, room.data(), room.size(), MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    return reactor_op::not_done;
  }
  if (n < 0) {
    ec = error_code(errno, net::error::get_system_category());
    return reactor_op::done;
  }
  if (n == 0) {
    ec = net::error::eof;
    return reactor_op::done;
  }
  ec = {};
  bytes = static_cast<std::size_t>(n);
  return bytes < room.size() && emptied(registration) ? reactor_op::done_and_exhausted : reactor_op::done;
}

reactor& reactor_of(net::ip::tcp::socket& socket) {
  return net::use_service<reactor>(net::query(socket.get_executor(), net::execution::context));
}

void start_read_op(reactor& io_reactor, net::ip::tcp::socket& socket, reactor_op* op) {
  io_reactor.start_op(reactor::read_op, socket.native_handle(), SocketInternals::registration(socket), op, false, true);
}

}  // namespace infergate::http
