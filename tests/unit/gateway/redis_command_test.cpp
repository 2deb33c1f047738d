#include "gateway/redis_command.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace infergate::gateway {
namespace {

TEST(RedisCommand, IsAnArrayOfBulkStringsWithNumbersInDecimal) {
  std::string out = "before;";
  const std::string key = "infergate:rl:k:1";
  append_redis_command(out, {"EVALSHA", std::string_view("abc"), "1", key, std::int64_t{-1}, std::int64_t{120000}});
  EXPECT_EQ(out,
            "before;*6\r\n$7\r\nEVALSHA\r\n$3\r\nabc\r\n$1\r\n1\r\n$16\r\ninfergate:rl:k:1\r\n$2\r\n-1\r\n"
            "$6\r\n120000\r\n");
}

TEST(RedisCommand, KeepsBytesThatRespNeedsNoEscapeFor) {
  std::string out;
  const std::string odd("a\r\nb\0c", 6);
  append_redis_command(out, {"SET", "", odd, std::numeric_limits<std::int64_t>::min()});
  using namespace std::string_literals;
  EXPECT_EQ(out, "*4\r\n$3\r\nSET\r\n$0\r\n\r\n$6\r\na\r\nb\0c\r\n$20\r\n-9223372036854775808\r\n"s);
}

TEST(RedisCommand, ScriptsAreNamedByTheSha1RedisGivesThem) {
  // What `SCRIPT LOAD "return 1"` answers.
  EXPECT_EQ(redis_script_sha1("return 1"), "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
  EXPECT_EQ(redis_script_sha1(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}

}  // namespace
}  // namespace infergate::gateway
