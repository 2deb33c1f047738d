#include "bench/summary.hpp"

#include <gtest/gtest.h>

#include "bench/summary_json.hpp"
#include "bench/time_units.hpp"

namespace infergate::bench {
namespace {

RequestRecord ok(std::int64_t due_ms, std::int64_t first_ms, std::int64_t last_ms, int tokens) {
  RequestRecord r;
  r.due_ns = r.dispatch_ns = due_ms * ms;
  r.first_token_ns = first_ms * ms;
  for (int i = 0; i < tokens; ++i) {
    r.text_events.push_back({first_ms * ms + i * ms, 4});
  }
  r.last_byte_ns = last_ms * ms;
  r.usage = openai::Usage{100, tokens};
  r.requested_input_tokens = 100;
  return r;
}

TEST(Summary, AnswersOfOtherLengthsThanAskedAreCountedWhereTheServerSaidItsCount) {
  std::vector<RequestRecord> records{ok(0, 100, 1000, 10), ok(0, 100, 1000, 7), ok(0, 100, 1000, 12)};
  for (auto& r : records) {
    r.requested_output_tokens = 10;
  }
  records[2].usage.reset();  // 12 text events, but no count from the server: not judged
  const BenchSummary s = summarize_run(records);
  EXPECT_EQ(s.requested_output_tokens, 30);
  EXPECT_EQ(s.other_output_lengths, 1u);
}

TEST(Summary, AnswersThatCalledAToolAreCountedAndReadBack) {
  std::vector<RequestRecord> records{ok(0, 100, 1000, 10), ok(0, 100, 1000, 7), ok(0, 100, 1000, 12)};
  records[0].called_tool = records[2].called_tool = true;
  const BenchSummary s = summarize_run(records);
  EXPECT_EQ(s.tool_call_answers, 2);
  EXPECT_EQ(summary_from_json(summary_json(s)).tool_call_answers, 2);
  // A result written before tool calls were counted has none.
  boost::json::object older = summary_json(s);
  older.erase("tool_call_answers");
  EXPECT_EQ(summary_from_json(older).tool_call_answers, 0);
}

TEST(Summary, ThroughputOverTheMeasuredWindowAndFailuresByClass) {
  std::vector<RequestRecord> records{ok(0, 100, 1000, 10), ok(500, 600, 2000, 30)};
  RequestRecord failed;
  failed.due_ns = failed.dispatch_ns = 100 * ms;
  failed.last_byte_ns = 150 * ms;
  failed.requested_input_tokens = 100;
  failed.fail("http_500", "boom");
  records.push_back(failed);

  const BenchSummary s = summarize_run(records);
  EXPECT_EQ(s.completed, 2u);
  EXPECT_EQ(s.failed, 1u);
  EXPECT_DOUBLE_EQ(s.duration_s, 2.0);
  EXPECT_DOUBLE_EQ(s.output_tokens_per_s, 20.0);
  EXPECT_DOUBLE_EQ(s.requests_per_s, 1.0);
  EXPECT_DOUBLE_EQ(s.total_tokens_per_s, 120.0);
  EXPECT_EQ(s.token_source, "usage");
  EXPECT_EQ(s.requested_input_tokens, 300);
  EXPECT_EQ(s.prompt_tokens, 200);
  EXPECT_DOUBLE_EQ(s.ttft_ms.p50, 100);
  ASSERT_EQ(s.failures.count("http_500"), 1u);
  EXPECT_EQ(s.failures.at("http_500").count, 1u);
  EXPECT_EQ(s.failures.at("http_500").examples.front(), "boom");
}

TEST(Summary, AFailureClassKeepsAFewDistinctExamples) {
  std::vector<RequestRecord> records;
  for (const char* message : {"too long", "too long", "too long", "bad role", "too long", "bad n", "bad stop"}) {
    RequestRecord r;
    r.fail("http_400", message);
    records.push_back(r);
  }
  const BenchSummary s = summarize_run(records);
  const FailureClass& failure = s.failures.at("http_400");
  EXPECT_EQ(failure.count, 7u);
  EXPECT_EQ(failure.examples, (std::vector<std::string>{"too long", "bad role", "bad n"}));
}

// A set of runs is measured by its input when none generated and one answered; a level where
// every request failed decides nothing either way.
TEST(Summary, RunsArePromptOnlyWhenNoneGeneratedAndOneAnswered) {
  struct Level {
    BenchSummary summary;
  };
  auto level = [](std::uint64_t completed, std::int64_t output_tokens) {
    Level l;
    l.summary.completed = completed;
    l.summary.output_tokens = output_tokens;
    return l;
  };
  EXPECT_TRUE(prompt_only(std::vector<Level>{level(10, 0), level(0, 0)}, &Level::summary));
  EXPECT_FALSE(prompt_only(std::vector<Level>{level(10, 0), level(10, 40)}, &Level::summary));
  EXPECT_FALSE(prompt_only(std::vector<Level>{level(0, 0)}, &Level::summary));
  EXPECT_FALSE(prompt_only(std::vector<Level>{}, &Level::summary));
  BenchSummary s;
  s.output_tokens_per_s = 30;
  s.total_tokens_per_s = 130;
  EXPECT_DOUBLE_EQ(input_token_rate(s), 100);
}

}  // namespace
}  // namespace infergate::bench
