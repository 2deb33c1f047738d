#include "gateway/redis_connection.hpp"

#include <fmt/format.h>
#include <hiredis/hiredis.h>
#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <charconv>
#include <deque>
#include <optional>
#include <stdexcept>

#include "core/as_tuple.hpp"
#include "core/clock.hpp"
#include "http/connect.hpp"

namespace infergate::gateway {

namespace net = boost::asio;
using boost::system::error_code;
using net::awaitable;

namespace {

constexpr std::chrono::seconds kDownTime{1};

RedisReply convert(const redisReply* r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::string;
      out.text.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::status;
      out.text.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = RedisReply::Type::error;
      out.text.assign(r->str, r->len);
      break;
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::integer;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::array;
      for (std::size_t i = 0; i < r->elements; ++i) {
        out.elements.push_back(convert(r->element[i]));
      }
      break;
    default:
      break;
  }
  return out;
}

}  // namespace

RedisAddress parse_redis_url(const std::string& url) {
  constexpr std::string_view kScheme = "redis://";
  if (!url.starts_with(kScheme)) {
    throw std::invalid_argument(fmt::format("'{}' is not a redis://host:port URL", url));
  }
  std::string_view rest = std::string_view(url).substr(kScheme.size());
  rest = rest.substr(0, rest.find('/'));
  RedisAddress a;
  const std::size_t colon = rest.rfind(':');
  a.host = std::string(rest.substr(0, colon));
  if (colon != std::string_view::npos) {
    const std::string_view port = rest.substr(colon + 1);
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), a.port);
    if (ec != std::errc{} || end != port.data() + port.size() || a.port == 0) {
      throw std::invalid_argument(fmt::format("'{}' has no valid port", url));
    }
  }
  if (a.host.empty()) {
    throw std::invalid_argument(fmt::format("'{}' has no host", url));
  }
  return a;
}

struct RedisConnection::Impl : std::enable_shared_from_this<Impl> {
  struct Pending {
    std::int64_t queued_ns = 0;                         // coarse: only timeouts read it
    net::any_completion_handler<void(Result)> handler;  // empty: the reply is dropped
  };

  Impl(net::any_io_executor ex, RedisAddress address, std::chrono::milliseconds timeout,
       const std::vector<std::string>& scripts)
      : executor(std::move(ex)),
        address(std::move(address)),
        timeout(timeout),
        stream(executor),
        writable(executor, net::steady_timer::time_point::max()),
        deadline(executor),
        reader(redisReaderCreate()) {
    for (const std::string& script : scripts) {
      append_redis_command(script_loads, {"SCRIPT", "LOAD", script});
    }
    script_count = scripts.size();
  }
  ~Impl() { redisReaderFree(reader); }

  void complete(Pending& p, Result result) {
    if (p.handler) {
      net::post(executor, [handler = std::move(p.handler), result = std::move(result)]() mutable {
        std::move(handler)(std::move(result));
      });
    }
  }

  void fail_all(error_code ec) {
    for (Pending& p : pending) {
      complete(p, ec);
    }
    pending.clear();
    outgoing.clear();
  }

  void go_down(error_code ec) {
    if (state == State::down) {
      return;
    }
    spdlog::warn("redis {}:{}: {}; rate-limit state unavailable for {} s", address.host, address.port, ec.message(),
                 kDownTime.count());
    state = State::down;
    down_until = std::chrono::steady_clock::now() + kDownTime;
    error_code ignored;
    stream.socket().close(ignored);
    writable.cancel();
    deadline.cancel();
    fail_all(ec);
    redisReaderFree(reader);
    reader = redisReaderCreate();
  }

  // Whether a command may be queued now: not within a second of a failure. Starts connecting
  // when not connected.
  bool usable() {
    if (state == State::down) {
      if (std::chrono::steady_clock::now() < down_until) {
        return false;
      }
      state = State::idle;
    }
    if (state == State::idle) {
      state = State::connecting;
      net::co_spawn(executor, run(), net::detached);
    }
    return true;
  }

  void queued(net::any_completion_handler<void(Result)> handler) {
    pending.push_back(Pending{coarse_monotonic_ns(), std::move(handler)});
    writable.cancel();
    watch_oldest();
  }

  // One timer for the whole pipeline, set for the oldest command's timeout: a reply that does not
  // come in time takes the connection down with every command after it.
  void watch_oldest() {
    if (deadline_set || pending.empty()) {
      return;
    }
    deadline_set = true;
    deadline.expires_at(to_time_point(pending.front().queued_ns) + timeout);
    deadline.async_wait([self = shared_from_this()](error_code ec) {
      self->deadline_set = false;
      if (ec || self->pending.empty() || self->state == State::down) {
        return;
      }
      // Read on the timer's own clock: a coarse reading could lag its expiry and set it again
      // for a moment already past, over and over.
      if (std::chrono::steady_clock::now() >= to_time_point(self->pending.front().queued_ns) + self->timeout) {
        // No answer in time: a stuck server is treated as a failed one.
        self->go_down(make_error_code(net::error::timed_out));
        return;
      }
      self->watch_oldest();
    });
  }

  awaitable<void> run() {
    auto self = shared_from_this();
    net::ip::tcp::resolver resolver(executor);
    auto [rec, endpoints] = co_await resolver.async_resolve(address.host, std::to_string(address.port), as_tuple);
    if (rec) {
      go_down(rec);
      co_return;
    }
    stream.expires_after(timeout);
    if (const boost::system::error_code cec = co_await http::connect_each(stream, endpoints)) {
      go_down(cec);
      co_return;
    }
    stream.expires_never();
    stream.socket().set_option(net::ip::tcp::no_delay(true));
    // The scripts go ahead of every command queued while connecting; their replies are dropped.
    outgoing.insert(0, script_loads);
    for (std::size_t i = 0; i < script_count; ++i) {
      pending.push_front(Pending{coarse_monotonic_ns(), {}});
    }
    state = State::up;
    net::co_spawn(executor, read_loop(), net::detached);
    while (state == State::up) {
      if (outgoing.empty()) {
        co_await writable.async_wait(as_tuple);
        continue;
      }
      batch.clear();
      batch.swap(outgoing);
      auto [wec, n] = co_await net::async_write(stream.socket(), net::buffer(batch), as_tuple);
      if (wec) {
        go_down(wec);
      }
    }
  }

  // Hands `reply` to the oldest command; false when the connection cannot go on.
  bool deliver(const redisReply* reply) {
    if (pending.empty()) {
      return false;  // a reply to nothing: the pipeline is out of step
    }
    Pending p = std::move(pending.front());
    pending.pop_front();
    const bool error = reply->type == REDIS_REPLY_ERROR;
    const std::string_view text = error ? std::string_view(reply->str, reply->len) : std::string_view();
    if (text.starts_with("NOSCRIPT")) {
      spdlog::warn("redis {}:{} no longer holds the gateway's scripts (SCRIPT FLUSH?); reconnecting to load them",
                   address.host, address.port);
      pending.push_front(std::move(p));
      return false;
    }
    if (error && !p.handler && !logged_dropped_error) {
      logged_dropped_error = true;
      spdlog::warn("redis {}:{} refused a command whose answer nothing waits for (logged once): {}", address.host,
                   address.port, text);
    }
    complete(p, convert(reply));
    return true;
  }

  awaitable<void> read_loop() {
    auto self = shared_from_this();
    char buffer[16384];
    while (state == State::up) {
      auto [ec, n] = co_await stream.socket().async_read_some(net::buffer(buffer), as_tuple);
      if (ec) {
        go_down(ec);
        co_return;
      }
      redisReaderFeed(reader, buffer, n);
      for (;;) {
        void* raw = nullptr;
        if (redisReaderGetReply(reader, &raw) != REDIS_OK) {
          go_down(make_error_code(boost::system::errc::protocol_error));
          co_return;
        }
        if (raw == nullptr) {
          break;
        }
        const bool delivered = deliver(static_cast<redisReply*>(raw));
        freeReplyObject(raw);
        if (!delivered) {
          go_down(make_error_code(boost::system::errc::protocol_error));
          co_return;
        }
      }
    }
  }

  enum class State { idle, connecting, up, down };

  net::any_io_executor executor;
  RedisAddress address;
  std::chrono::milliseconds timeout;
  boost::beast::tcp_stream stream;
  net::steady_timer writable;  // woken when `outgoing` gets bytes
  net::steady_timer deadline;  // the oldest pending command's timeout
  bool deadline_set = false;
  redisReader* reader;
  State state = State::idle;
  std::chrono::steady_clock::time_point down_until{};
  std::string outgoing;
  std::string batch;  // being written
  std::deque<Pending> pending;
  std::string script_loads;  // SCRIPT LOAD of each script, encoded once
  std::size_t script_count = 0;
  bool logged_dropped_error = false;
};

RedisConnection::RedisConnection(net::any_io_executor executor, RedisAddress address, std::chrono::milliseconds timeout,
                                 const std::vector<std::string>& scripts)
    : impl_(std::make_shared<Impl>(std::move(executor), std::move(address), timeout, scripts)) {}

RedisConnection::~RedisConnection() {
  error_code ignored;
  impl_->state = Impl::State::down;
  impl_->stream.socket().close(ignored);
  impl_->writable.cancel();
  impl_->deadline.cancel();
}

void RedisConnection::start(std::string_view encoded, net::any_completion_handler<void(Result)> handler) {
  Impl& c = *impl_;
  if (!c.usable()) {
    Impl::Pending refused{0, std::move(handler)};
    c.complete(refused, make_error_code(net::error::not_connected));
    return;
  }
  c.outgoing += encoded;
  c.queued(std::move(handler));
}

void RedisConnection::send(std::initializer_list<RedisArg> args) {
  Impl& c = *impl_;
  if (!c.usable()) {
    return;
  }
  append_redis_command(c.outgoing, args);
  c.queued({});
}

}  // namespace infergate::gateway
