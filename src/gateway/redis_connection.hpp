#pragma once
// One connection to Redis for the coroutines of one I/O thread (no locks: everything runs on that
// thread). Commands are pipelined: each is queued as it comes, written with whatever else is
// queued, and the replies are matched in order. hiredis parses the replies (its reader only); Asio
// does the I/O, so no call blocks the thread. The connection's Lua scripts are loaded on every
// connect, ahead of any command, so callers name them by SHA-1 (EVALSHA) instead of sending their
// text each time; a server that has lost them (SCRIPT FLUSH) is treated as a failed one. After a
// failure the connection stays down for a second, answering every command with an error at once,
// so that an outage costs callers nothing but the decision to fail open or closed.
#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gateway/redis_command.hpp"

namespace infergate::gateway {

struct RedisReply {
  enum class Type { string, array, integer, nil, status, error };
  Type type = Type::nil;
  std::int64_t integer = 0;
  std::string text;  // string, status or error
  std::vector<RedisReply> elements;
};

struct RedisAddress {
  std::string host = "127.0.0.1";
  std::uint16_t port = 6379;
};

// "redis://host:port" (port 6379 when absent); throws std::invalid_argument naming the problem.
RedisAddress parse_redis_url(const std::string& url);

class RedisConnection {
 public:
  // The reply (an error reply is a reply), or why there is none: not connected, timed out, the
  // connection failed.
  using Result = boost::system::result<RedisReply>;

  // `scripts`: the Lua scripts loaded on each connect.
  RedisConnection(boost::asio::any_io_executor executor, RedisAddress address, std::chrono::milliseconds timeout,
                  const std::vector<std::string>& scripts = {});
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Queues the command now and completes with its reply.
  template <boost::asio::completion_token_for<void(Result)> Token>
  auto command(std::initializer_list<RedisArg> args, Token&& token) {
    std::string encoded;
    append_redis_command(encoded, args);
    return boost::asio::async_initiate<Token, void(Result)>(
        [this](auto handler, const std::string& bytes) { start(bytes, std::move(handler)); }, token,
        std::move(encoded));
  }

  // Queues the command; its reply is read and dropped (an error reply is logged).
  void send(std::initializer_list<RedisArg> args);

 private:
  struct Impl;
  void start(std::string_view encoded, boost::asio::any_completion_handler<void(Result)> handler);

  std::shared_ptr<Impl> impl_;
};

}  // namespace infergate::gateway
