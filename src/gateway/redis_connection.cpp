#include "gateway/redis_connection.hpp"

#include <fmt/format.h>
#include <hiredis/hiredis.h>
#include <spdlog/spdlog.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <charconv>
#include <deque>
#include <optional>
#include <stdexcept>

namespace infergate::gateway {

namespace net = boost::asio;
using boost::system::error_code;
using net::awaitable;
constexpr auto as_tuple = net::as_tuple(net::use_awaitable);

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

struct RedisConnection::Pending {
  explicit Pending(const net::any_io_executor& ex) : wake(ex) {}
  net::steady_timer wake;
  std::optional<boost::system::result<RedisReply>> result;
};

struct RedisConnection::Impl : std::enable_shared_from_this<Impl> {
  Impl(net::any_io_executor ex, RedisAddress address, std::chrono::milliseconds timeout)
      : executor(std::move(ex)),
        address(std::move(address)),
        timeout(timeout),
        stream(executor),
        writable(executor, net::steady_timer::time_point::max()),
        reader(redisReaderCreate()) {}
  ~Impl() { redisReaderFree(reader); }

  void fail_all(error_code ec) {
    for (auto& p : pending) {
      if (!p->result) {
        p->result = ec;
        p->wake.cancel();
      }
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
    fail_all(ec);
    redisReaderFree(reader);
    reader = redisReaderCreate();
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
    auto [cec, endpoint] = co_await stream.async_connect(endpoints, as_tuple);
    if (cec) {
      go_down(cec);
      co_return;
    }
    stream.expires_never();
    stream.socket().set_option(net::ip::tcp::no_delay(true));
    state = State::up;
    net::co_spawn(executor, read_loop(), net::detached);
    while (state == State::up) {
      if (outgoing.empty()) {
        co_await writable.async_wait(as_tuple);
        continue;
      }
      std::string batch;
      batch.swap(outgoing);
      auto [wec, n] = co_await net::async_write(stream.socket(), net::buffer(batch), as_tuple);
      if (wec) {
        go_down(wec);
      }
    }
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
        auto* reply = static_cast<redisReply*>(raw);
        if (!pending.empty()) {
          auto p = pending.front();
          pending.pop_front();
          if (!p->result) {
            p->result = convert(reply);
            p->wake.cancel();
          }
        }
        freeReplyObject(reply);
      }
    }
  }

  enum class State { idle, connecting, up, down };

  net::any_io_executor executor;
  RedisAddress address;
  std::chrono::milliseconds timeout;
  boost::beast::tcp_stream stream;
  net::steady_timer writable;  // woken when `outgoing` gets bytes
  redisReader* reader;
  State state = State::idle;
  std::chrono::steady_clock::time_point down_until{};
  std::string outgoing;
  std::deque<std::shared_ptr<Pending>> pending;
};

RedisConnection::RedisConnection(net::any_io_executor executor, RedisAddress address, std::chrono::milliseconds timeout)
    : impl_(std::make_shared<Impl>(std::move(executor), std::move(address), timeout)) {}

RedisConnection::~RedisConnection() {
  error_code ignored;
  impl_->state = Impl::State::down;
  impl_->stream.socket().close(ignored);
  impl_->writable.cancel();
}

awaitable<boost::system::result<RedisReply>> RedisConnection::command(std::vector<std::string> args) {
  Impl& c = *impl_;
  if (c.state == Impl::State::down) {
    if (std::chrono::steady_clock::now() < c.down_until) {
      co_return make_error_code(net::error::not_connected);
    }
    c.state = Impl::State::idle;
  }
  if (c.state == Impl::State::idle) {
    c.state = Impl::State::connecting;
    net::co_spawn(c.executor, c.run(), net::detached);
  }
  fmt::format_to(std::back_inserter(c.outgoing), "*{}\r\n", args.size());
  for (const auto& a : args) {
    fmt::format_to(std::back_inserter(c.outgoing), "${}\r\n", a.size());
    c.outgoing += a;
    c.outgoing += "\r\n";
  }
  auto p = std::make_shared<Pending>(c.executor);
  c.pending.push_back(p);
  c.writable.cancel();
  p->wake.expires_after(c.timeout);
  co_await p->wake.async_wait(as_tuple);
  if (!p->result) {
    // No answer in time: a stuck server is treated as a failed one.
    c.go_down(make_error_code(net::error::timed_out));
    co_return make_error_code(net::error::timed_out);
  }
  co_return std::move(*p->result);
}

}  // namespace infergate::gateway
