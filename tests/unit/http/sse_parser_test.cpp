#include "http/sse_parser.hpp"

#include <gtest/gtest.h>

#include <random>
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

TEST(SseParser, CountsTheBytesOfTheEventStillWaitingForItsEnd) {
  SseParser parser;
  auto ignore = [](const SseEvent&) {};
  parser.feed("data: a\n\ndata: b", ignore);
  EXPECT_EQ(parser.unfinished_bytes(), 7u);
  parser.feed("cd", ignore);
  EXPECT_EQ(parser.unfinished_bytes(), 9u);
  parser.feed(": comment\n", ignore);  // still no blank line
  EXPECT_EQ(parser.unfinished_bytes(), 19u);
  parser.feed("\ndata: e", ignore);
  EXPECT_EQ(parser.unfinished_bytes(), 7u);
  parser.feed("\r\n\r\n", ignore);
  EXPECT_EQ(parser.unfinished_bytes(), 0u);
  // The same through the fast path that takes runs of events whole.
  SseParser runs;
  auto take_nothing = [](std::size_t) -> std::size_t { return 0; };
  runs.feed("data: a\n\ndata: b", ignore, take_nothing);
  EXPECT_EQ(runs.unfinished_bytes(), 7u);
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

TEST(SseParser, ReportsWhereEachEventBeganAfterTheCommentsBeforeIt) {
  SseParser parser;
  std::vector<std::size_t> begins;
  const auto on_event = [&](const SseEvent&) { begins.push_back(parser.event_begin()); };
  const std::string bytes = "data: a\n\n: ping\n\nid: 2\ndata: b\n\n: note\ndata: c\n\ndata: d";
  parser.feed(bytes, on_event);
  EXPECT_EQ(begins, (std::vector<std::size_t>{0, bytes.find("id: 2"), bytes.find(": note")}));
  // An event begun in an earlier read began at 0 of this one; one begun here, where it begins.
  begins.clear();
  parser.feed("\n\n: x\r\n\r\nevent: e\ndata: f\n\n", on_event);
  EXPECT_EQ(begins, (std::vector<std::size_t>{0, 9}));
}

// Whole reads take a shortcut for events of one LF-terminated data line; a byte at a time never
// does. Random streams of every kind of line must give the same events both ways, and the same
// offsets of their ends where no CR makes those depend on the split.
TEST(SseParser, TheSingleLineShortcutAgreesWithLineByLineParsing) {
  const std::vector<std::string> lines = {"data: {\"a\":1}",
                                          "data:{\"b\":2}",
                                          "data:",
                                          "data: ",
                                          "data:  two spaces",
                                          "data",
                                          ": comment",
                                          "event: e",
                                          "id: 7",
                                          "retry: 10",
                                          "bogus: x",
                                          "",
                                          "datum: x",
                                          "data: with\ra bare CR"};
  const std::vector<std::string> endings = {"\n", "\n", "\n", "\r\n", "\r"};
  std::mt19937 rng(5);
  for (int i = 0; i < 20000; ++i) {
    std::string stream;
    const int count = 1 + static_cast<int>(rng() % 12);
    for (int l = 0; l < count; ++l) {
      stream += lines[rng() % lines.size()] + endings[rng() % endings.size()];
    }
    std::vector<std::size_t> whole_ends;
    std::vector<std::size_t> byte_ends;
    SseParser whole;
    SseParser bytewise;
    std::vector<Collected> whole_events;
    std::vector<Collected> byte_events;
    whole.feed(stream, [&](const SseEvent& e) {
      whole_events.push_back({std::string(e.event), std::string(e.data), std::string(e.id)});
      whole_ends.push_back(whole.position());
    });
    for (std::size_t at = 0; at < stream.size(); ++at) {
      bytewise.feed(std::string_view(stream).substr(at, 1), [&](const SseEvent& e) {
        byte_events.push_back({std::string(e.event), std::string(e.data), std::string(e.id)});
        byte_ends.push_back(at + bytewise.position());
      });
    }
    ASSERT_EQ(whole_events, byte_events) << testing::PrintToString(stream);
    // Fed a byte at a time, a CR ends its line before the LF of a CRLF arrives: a CRLF blank line
    // then ends its event a byte earlier than in one feed.
    if (stream.find('\r') == std::string::npos) {
      ASSERT_EQ(whole_ends, byte_ends) << testing::PrintToString(stream);
    }
    ASSERT_EQ(whole.ignored_lines(), bytewise.ignored_lines()) << testing::PrintToString(stream);
  }
}

TEST(SseParser, EventsACallerTakesAreSkippedAndTheRestAreParsed) {
  // The caller here takes every run of events whose data begins with T. It is not offered the
  // data line after an id line: that line began the event.
  const std::string bytes =
      "data: T1\n\n: c\n\ndata: a\n\ndata: T2\n\ndata: T3\n\nid: 4\ndata: Tb\n\ndata: T4\n\ndata: c";
  SseParser parser;
  std::vector<std::size_t> taken_at;
  std::vector<Collected> events;
  std::vector<std::size_t> ends;
  auto on_event = [&](const SseEvent& e) {
    events.push_back({std::string(e.event), std::string(e.data), std::string(e.id)});
    ends.push_back(parser.position());
  };
  auto take_run = [&](std::size_t pos) {
    std::size_t at = pos;
    while (bytes.compare(at, 7, "data: T") == 0 && bytes.find("\n\n", at) != std::string::npos) {
      at = bytes.find("\n\n", at) + 2;
    }
    if (at != pos) {
      taken_at.push_back(pos);
    }
    return at - pos;
  };
  const std::size_t complete = parser.feed(bytes, on_event, take_run);
  EXPECT_EQ(taken_at, (std::vector<std::size_t>{0, bytes.find("data: T2"), bytes.find("data: T4")}));
  EXPECT_EQ(events, (std::vector<Collected>{{"", "a", ""}, {"", "Tb", "4"}}));
  EXPECT_EQ(ends, (std::vector<std::size_t>{bytes.find("data: T2"), bytes.find("data: T4")}));
  EXPECT_EQ(complete, bytes.find("data: c"));
  parser.feed("\n\n", on_event);
  EXPECT_EQ(events.back(), (Collected{"", "c", "4"}));
}

}  // namespace
}  // namespace infergate::http
