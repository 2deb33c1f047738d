#include <gtest/gtest.h>

#include <string>

#include "http/client.hpp"

namespace infergate::http {
namespace {

TEST(ResponseHead, LooksHeadersUpByNameWithoutRegardToCase) {
  ResponseHead head;
  head.reserve_text(64);
  head.add_header("Content-Type", "text/event-stream");
  head.add_header("x-ratelimit-remaining-requests", "0");
  head.add_header("Retry-After", "");
  EXPECT_EQ(head.header("content-type"), "text/event-stream");
  EXPECT_EQ(head.header("X-RateLimit-Remaining-Requests"), "0");
  EXPECT_EQ(head.header("retry-after"), "");
  EXPECT_EQ(head.header("Content-Length"), "");
  ASSERT_EQ(head.header_count(), 3U);
  EXPECT_EQ(head.header_at(1).name, "x-ratelimit-remaining-requests");
  EXPECT_EQ(head.header_at(1).value, "0");
}

TEST(ResponseHead, ViewsStayValidWhenTheHeadGrowsOrMoves) {
  ResponseHead head;
  for (int i = 0; i < 40; ++i) {  // beyond the inline capacity and any initial reservation
    head.add_header("x-header-" + std::to_string(i), std::string(static_cast<std::size_t>(i), 'v'));
  }
  const ResponseHead moved = std::move(head);
  ASSERT_EQ(moved.header_count(), 40U);
  for (std::size_t i = 0; i < 40; ++i) {
    EXPECT_EQ(moved.header_at(i).name, "x-header-" + std::to_string(i));
    EXPECT_EQ(moved.header_at(i).value, std::string(i, 'v'));
  }
  EXPECT_EQ(moved.header("X-HEADER-39"), std::string(39, 'v'));
}

}  // namespace
}  // namespace infergate::http
