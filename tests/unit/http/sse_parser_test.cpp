#include "http/sse_parser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace infergate::http {
namespace {

struct Collected {
  std::string event;
  std::string data;
  std::string id;
  bool operator==(const Collected&) const = default;
};

std::vector<Collected> parse_split(std::string_view stream, std::vector<std::size_t> cuts) {
  SseParser parser;
  std::vector<Collected> out;
  auto on_event = [&](const SseEvent& e) {
    out.push_back({std::string(e.event), std::string(e.data), std::string(e.id)});
  };
  std::size_t pos = 0;
  cuts.push_back(stream.size());
  for (std::size_t cut : cuts) {
    parser.feed(stream.substr(pos, cut - pos), on_event);
    pos = cut;
  }
  parser.finish(on_event);
  return out;
}

// Every way of splitting the stream in two and in three pieces gives the same events.
void expect_same_at_every_split(std::string_view stream, const std::vector<Collected>& expected) {
  ASSERT_EQ(parse_split(stream, {}), expected);
  for (std::size_t i = 0; i <= stream.size(); ++i) {
    ASSERT_EQ(parse_split(stream, {i}), expected) << "split at " << i;
    for (std::size_t j = i; j <= stream.size(); ++j) {
      ASSERT_EQ(parse_split(stream, {i, j}), expected) << "split at " << i << "," << j;
    }
  }
}

TEST(SseParser, OpenAiStreamAtEverySplit) {
  expect_same_at_every_split("data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n",
                             {{"", "{\"a\":1}", ""}, {"", "{\"b\":2}", ""}, {"", "[DONE]", ""}});
}

TEST(SseParser, CrLfLineEndingsAtEverySplit) {
  expect_same_at_every_split("data: one\r\n\r\ndata: two\r\n\r\n", {{"", "one", ""}, {"", "two", ""}});
}

TEST(SseParser, BareCrLineEndingsAtEverySplit) {
  expect_same_at_every_split("data: one\r\rdata: two\r\r", {{"", "one", ""}, {"", "two", ""}});
}

TEST(SseParser, CommentsAreIgnoredAtEverySplit) {
  expect_same_at_every_split(": keep-alive\n\ndata: x\n: in between\n\n", {{"", "x", ""}});
}

TEST(SseParser, MultiLineDataIsJoinedWithNewlinesAtEverySplit) {
  expect_same_at_every_split("data: first\ndata: second\ndata:third\n\n", {{"", "first\nsecond\nthird", ""}});
}

TEST(SseParser, EventNameAndIdAtEverySplit) {
  expect_same_at_every_split("event: error\nid: 7\ndata: {}\n\ndata: next\n\n",
                             {{"error", "{}", "7"}, {"", "next", "7"}});
}

TEST(SseParser, MissingFinalNewlineStillDeliversTheLastEvent) {
  expect_same_at_every_split("data: a\n\ndata: last", {{"", "a", ""}, {"", "last", ""}});
  expect_same_at_every_split("data: a\n\ndata: last\n", {{"", "a", ""}, {"", "last", ""}});
}

TEST(SseParser, OnlyOneLeadingSpaceIsStripped) {
  expect_same_at_every_split("data:  two spaces\n\n", {{"", " two spaces", ""}});
}

TEST(SseParser, EmptyDataLineMakesAnEmptyEvent) {
  expect_same_at_every_split("data\n\n", {{"", "", ""}});
}

TEST(SseParser, BlankLinesWithoutDataDispatchNothing) {
  expect_same_at_every_split("\n\n\r\n", {});
}

TEST(SseParser, UnknownFieldsAreCounted) {
  SseParser parser;
  int events = 0;
  parser.feed("foo: bar\nretry: 10\ndata: x\n\n", [&](const SseEvent&) { ++events; });
  EXPECT_EQ(events, 1);
  EXPECT_EQ(parser.ignored_lines(), 1u);
}

TEST(SseParser, ReportsWhereEventsEndAndThePointUpToWhichBytesAreComplete) {
  SseParser parser;
  std::vector<std::size_t> ends;
  const std::string bytes = ": ping\r\n\r\ndata: a\r\n\r\ndata: b\n\ndata: c";
  const std::size_t complete = parser.feed(bytes, [&](const SseEvent&) { ends.push_back(parser.position()); });
  const std::size_t after_a = bytes.find("data: b");
  EXPECT_EQ(ends, (std::vector<std::size_t>{after_a, bytes.find("data: c")}));
  EXPECT_EQ(complete, bytes.find("data: c"));
  EXPECT_EQ(parser.feed("more of c", [](const SseEvent&) {}), std::string_view::npos);
  EXPECT_EQ(parser.position(), std::string_view::npos);
  // A comment block alone completes bytes without an event.
  SseParser comments;
  EXPECT_EQ(comments.feed(": keep-alive\n\n: again", [](const SseEvent&) { FAIL(); }), 14U);
}

}  // namespace
}  // namespace infergate::http
