#include "gateway/usage_query.hpp"

#include <gtest/gtest.h>

#include <string>
#include <variant>

namespace infergate::gateway {
namespace {

// The problem parse_usage_query finds, or "" when it takes the query.
std::string problem(std::string_view query) {
  const auto parsed = parse_usage_query(query);
  const std::string* text = std::get_if<std::string>(&parsed);
  return text == nullptr ? "" : *text;
}

TEST(UsageQuery, ReadsEachFilterPercentDecoded) {
  const auto parsed = parse_usage_query("key_id=abc&model=meta-llama%2FLlama-3.1-8B&since=2026-01-02&until=2026-02-01");
  ASSERT_TRUE(std::holds_alternative<UsageFilter>(parsed)) << problem("");
  const UsageFilter& f = std::get<UsageFilter>(parsed);
  EXPECT_EQ(f.key_id, "abc");
  EXPECT_EQ(f.model, "meta-llama/Llama-3.1-8B");
  EXPECT_EQ(f.since, "2026-01-02");
  EXPECT_EQ(f.until, "2026-02-01");
  EXPECT_EQ(problem(""), "");
  EXPECT_EQ(problem("&model=m&"), "");
  EXPECT_EQ(problem("since=2026-01-02&until=2026-01-02"), "");  // one day
}

TEST(UsageQuery, RefusesWhatItWouldOtherwiseIgnore) {
  EXPECT_EQ(problem("start_date=2026-01-01"),
            "unknown query parameter 'start_date'; /admin/usage takes key_id, model, since and until");
  EXPECT_EQ(
      problem("models=x"),
      "unknown query parameter 'models' (did you mean 'model'?); /admin/usage takes key_id, model, since and until");
  EXPECT_EQ(problem("model=a&model=b"), "'model' is given twice");
  EXPECT_EQ(problem("key_id=a%2"), "'key_id' has a '%' not followed by two hex digits");
  EXPECT_EQ(problem("since=2026-1-2"), "'since' must be a UTC day, YYYY-MM-DD; got '2026-1-2'");
  EXPECT_EQ(problem("until=2026-13-01"), "'until' must be a UTC day, YYYY-MM-DD; got '2026-13-01'");
  EXPECT_EQ(problem("since=2026-02-01&until=2026-01-01"), "'since' (2026-02-01) is after 'until' (2026-01-01)");
}

}  // namespace
}  // namespace infergate::gateway
