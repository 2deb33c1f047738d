#pragma once
// A Redis command as the wire carries it (RESP: an array of bulk strings), written straight into
// the connection's outgoing buffer: no argument vector, no format string, once per request.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace infergate::gateway {

// One argument: text, or an integer sent in decimal.
class RedisArg {
 public:
  RedisArg(std::string_view text)
      : text_(text) {}  // NOLINT(google-explicit-constructor): a list of them reads as the command
  RedisArg(const char* text) : text_(text) {}                           // NOLINT(google-explicit-constructor)
  RedisArg(const std::string& text) : text_(text) {}                    // NOLINT(google-explicit-constructor)
  RedisArg(std::int64_t number) : number_(number), is_number_(true) {}  // NOLINT(google-explicit-constructor)

  void append_bulk(std::string& out) const;

 private:
  std::string_view text_;
  std::int64_t number_ = 0;
  bool is_number_ = false;
};

// Appends the command `args` (its name first) to `out`.
void append_redis_command(std::string& out, std::initializer_list<RedisArg> args);

// The SHA-1 of a Lua script in lower-case hex: the name EVALSHA calls it by.
std::string redis_script_sha1(std::string_view script);

}  // namespace infergate::gateway
