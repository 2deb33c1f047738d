#include "core/byte_vector.hpp"

#include <gtest/gtest.h>

#include <string>

namespace infergate {
namespace {

// Every length up to three words, against a copy and against each one-byte change: the words
// overlap at the end, so a difference in any position, first and last included, must show.
TEST(SameBytesTest, FindsADifferenceAtEveryPositionOfEveryLength) {
  const std::string source = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (std::size_t n = 0; n <= 24; ++n) {
    const std::string a = source.substr(0, n);
    std::string b = a;
    EXPECT_TRUE(same_bytes(a, b)) << n;
    for (std::size_t i = 0; i < n; ++i) {
      b[i] = '#';
      EXPECT_FALSE(same_bytes(a, b)) << n << " at " << i;
      b[i] = a[i];
    }
    if (n > 0) {
      EXPECT_FALSE(same_bytes(a, a.substr(0, n - 1))) << n;
    }
  }
}

}  // namespace
}  // namespace infergate
