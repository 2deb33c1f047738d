#pragma once
// One connection to Redis for the coroutines of one I/O thread (no locks: everything runs on that
// thread). Commands are pipelined: each is written as it comes and the replies are matched in
// order. hiredis parses the replies (its reader only); Asio does the I/O, so no call blocks the
// thread. After a failure the connection stays down for a second, answering every command with
// an error at once, so that an outage costs callers nothing but the decision to fail open or
// closed.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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

class RedisConnection : public std::enable_shared_from_this<RedisConnection> {
 public:
  RedisConnection(boost::asio::any_io_executor executor, RedisAddress address, std::chrono::milliseconds timeout);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // The reply (an error reply is a reply), or why there is none: not connected, timed out, the
  // connection failed.
  boost::asio::awaitable<boost::system::result<RedisReply>> command(std::vector<std::string> args);

 private:
  struct Pending;
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace infergate::gateway
