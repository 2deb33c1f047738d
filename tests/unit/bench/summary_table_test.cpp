#include "bench/summary_table.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "bench/time_units.hpp"

namespace infergate::bench {
namespace {

std::string printed(const BenchSummary& s) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  print_summary_table(out, s, "title", true);
  std::fclose(out);
  std::string result(text, size);
  std::free(text);
  return result;
}

std::vector<RequestRecord> records(int n) {
  std::vector<RequestRecord> out;
  for (int i = 0; i < n; ++i) {
    RequestRecord r;
    r.due_ns = r.dispatch_ns = i * ms;
    r.first_token_ns = r.due_ns + (i + 1) * ms;
    r.text_events.push_back({r.first_token_ns, 4});
    r.text_events.push_back({r.first_token_ns + ms, 4});
    r.last_byte_ns = r.first_token_ns + ms;
    r.usage = openai::Usage{10, 2};
    out.push_back(r);
  }
  return out;
}

TEST(SummaryTable, MorePercentilesAreColumnsInOrderAmongTheStandardOnes) {
  const std::vector<double> more{25, 99.9};
  const std::string table = printed(summarize_run(records(100), more));
  EXPECT_NE(
      table.find("  ms                mean       p25       p50       p90       p95       p99     p99.9       max\n"),
      std::string::npos)
      << table;
  // TTFT of request i is i + 1 ms: p25 at rank 24.75 is 25.75, p99.9 at rank 98.901 is 99.901.
  EXPECT_NE(
      table.find("  TTFT             50.50     25.75     50.50     90.10     95.05     99.01     99.90    100.00\n"),
      std::string::npos)
      << table;
}

TEST(SummaryTable, WithoutMoreTheStandardColumns) {
  const std::string table = printed(summarize_run(records(10)));
  EXPECT_NE(table.find("  ms                mean       p50       p90       p95       p99       max\n"),
            std::string::npos)
      << table;
}

// Embeddings come whole and generate nothing: the table gives the input rate and no TPOT or ITL
// rows (all zeros, they read as a measurement).
TEST(SummaryTable, APromptOnlyRunShowsItsInputRateAndNoDecodeRows) {
  std::vector<RequestRecord> answers = records(10);
  for (RequestRecord& r : answers) {
    r.text_events.clear();
    r.first_token_ns = r.last_byte_ns;
    r.usage = openai::Usage{256, 0};
  }
  const BenchSummary s = summarize_run(answers);
  ASSERT_TRUE(prompt_only(s));
  const std::string table = printed(s);
  EXPECT_NE(table.find(fmt::format("  throughput    {:.2f} req/s   {:.1f} input tok/s\n", s.requests_per_s,
                                   s.total_tokens_per_s)),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("  tokens        2560 prompt (server) vs 0 requested\n"), std::string::npos) << table;
  EXPECT_EQ(table.find("TPOT"), std::string::npos) << table;
  EXPECT_EQ(table.find("ITL"), std::string::npos) << table;
  EXPECT_EQ(table.find("output tok/s"), std::string::npos) << table;
  EXPECT_FALSE(prompt_only(summarize_run(records(10))));
  EXPECT_FALSE(prompt_only(BenchSummary{}));  // nothing answered is not an embeddings run
}

}  // namespace
}  // namespace infergate::bench
