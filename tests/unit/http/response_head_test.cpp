#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "http/client.hpp"
#include "http/message_head.hpp"

namespace infergate::http {
namespace {

TEST(ResponseHead, LooksHeadersUpByNameWithoutRegardToCase) {
  ResponseHead head;
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

// A head as the client reads it: parsed in the read buffer, then copied once, the fields found in
// the copy. The buffer is overwritten after, as the body's bytes overwrite it.
TEST(ResponseHead, TakesAParsedHeadsFieldsFromOneCopyOfItsText) {
  std::string buffer =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Empty:\r\nx-ratelimit-reset-requests:  2s \r\n"
      "Content-Length: 12\r\n\r\n";
  MessageHead parsed;
  ASSERT_FALSE(parse_response_head(buffer, false, parsed));
  ASSERT_EQ(parsed.fields.size(), 4U);
  std::vector<Header> fields(parsed.fields.begin(), parsed.fields.end());
  const std::string elsewhere = "X-Added";
  fields.push_back(Header{elsewhere, "from another buffer"});
  fields.push_back(Header{"X-Null", std::string_view{}});
  ResponseHead head;
  head.add_header("X-Before", "replaced");
  head.assign_headers(buffer, fields);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"Content-Type", "application/json"}, {"X-Empty", ""},
      {"x-ratelimit-reset-requests", "2s"}, {"Content-Length", "12"},
      {"X-Added", "from another buffer"},   {"X-Null", ""}};
  std::fill(buffer.begin(), buffer.end(), '#');
  ASSERT_EQ(head.header_count(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(head.header_at(i).name, expected[i].first) << i;
    EXPECT_EQ(head.header_at(i).value, expected[i].second) << i;
  }
  EXPECT_EQ(head.header("content-type"), "application/json");
  EXPECT_EQ(head.header("x-added"), "from another buffer");
  EXPECT_EQ(head.header("X-Before"), "");
}

}  // namespace
}  // namespace infergate::http
