#include "gateway/request_id.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace infergate::gateway {
namespace {

TEST(RequestId, ClientIdsThatAreSafeToEcho) {
  EXPECT_TRUE(acceptable_request_id("abc-123_XYZ.1"));
  EXPECT_FALSE(acceptable_request_id(""));
  EXPECT_FALSE(acceptable_request_id("has space"));
  EXPECT_FALSE(acceptable_request_id("evil\r\nSet-Cookie: x=1"));
  EXPECT_FALSE(acceptable_request_id(std::string(129, 'a')));
  EXPECT_FALSE(acceptable_request_id("caf\xc3\xa9"));
}

TEST(RequestId, GeneratedIdsAreHexAndDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id(RequestId::generate().view());
    EXPECT_EQ(id.size(), 32u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(RequestId, EveryPlaceTakesEveryDigit) {
  // For a random generator, a place that missed a digit in 2,000 ids is less than one chance in
  // 10^50: a miss means bits lost on the way to the text.
  std::vector<std::set<char>> digits(32);
  for (int i = 0; i < 2000; ++i) {
    const RequestId generated = RequestId::generate();
    const std::string_view id = generated.view();
    ASSERT_EQ(id.size(), digits.size());
    for (std::size_t place = 0; place < id.size(); ++place) {
      digits[place].insert(id[place]);
    }
  }
  for (std::size_t place = 0; place < digits.size(); ++place) {
    EXPECT_EQ(digits[place].size(), 16U) << "place " << place;
  }
}

TEST(RequestId, TheClientsOwnIsEchoedOnlyWhenSafe) {
  EXPECT_EQ(RequestId::from_client("abc-123").view(), "abc-123");
  const std::string longest(RequestId::kMaxSize, 'x');
  EXPECT_EQ(RequestId::from_client(longest).view(), longest);
  for (const std::string& bad : {std::string(), std::string(RequestId::kMaxSize + 1, 'x'), std::string("a\r\nb: c")}) {
    const RequestId id = RequestId::from_client(bad);
    EXPECT_EQ(id.view().size(), 32U) << bad;
    EXPECT_EQ(id.view().find_first_not_of("0123456789abcdef"), std::string_view::npos) << bad;
  }
}

}  // namespace
}  // namespace infergate::gateway
