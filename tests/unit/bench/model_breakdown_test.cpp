#include "bench/model_breakdown.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "bench/time_units.hpp"

namespace infergate::bench {
namespace {

RequestRecord answered(std::uint32_t model, std::int64_t first_ms, int tokens) {
  RequestRecord r;
  r.model = model;
  r.first_token_ns = first_ms * ms;
  for (int i = 0; i < tokens; ++i) {
    r.text_events.push_back({first_ms * ms + i * ms, 4});
  }
  r.last_byte_ns = r.text_events.back().ns;
  r.usage = openai::Usage{10, tokens};
  return r;
}

TEST(ModelBreakdown, EachModelIsSummarizedOverItsOwnRequests) {
  std::vector<RequestRecord> records{answered(0, 100, 5), answered(1, 900, 9), answered(0, 200, 5)};
  records.push_back(RequestRecord{});
  records.back().model = 1;
  records.back().fail("http_404", "no such model");
  const std::vector<std::string> models{"fast", "slow"};
  const ModelSummaries by_model = summarize_by_model(records, models);
  ASSERT_EQ(by_model.size(), 2u);
  EXPECT_EQ(by_model[0].first, "fast");
  EXPECT_EQ(by_model[0].second.completed, 2u);
  EXPECT_EQ(by_model[0].second.output_tokens, 10);
  EXPECT_NEAR(by_model[0].second.ttft_ms.max, 200, 1);
  EXPECT_EQ(by_model[1].second.completed, 1u);
  EXPECT_EQ(by_model[1].second.failed, 1u);
  EXPECT_NEAR(by_model[1].second.ttft_ms.p50, 900, 1);
  // A run of one model has no breakdown: its table says it all.
  EXPECT_TRUE(summarize_by_model(records, std::vector<std::string>{"fast"}).empty());
}

TEST(ModelBreakdown, ReadsBackWhatItWritesAndPrintsALinePerModel) {
  const std::vector<RequestRecord> records{answered(0, 100, 5), answered(1, 900, 9)};
  const std::vector<std::string> models{"fast", "a-much-longer-model-name"};
  const ModelSummaries by_model = summarize_by_model(records, models);
  const ModelSummaries back = model_breakdown_from_json(model_breakdown_json(by_model));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].first, "a-much-longer-model-name");
  EXPECT_EQ(back[1].second.output_tokens, 9);
  EXPECT_THROW(model_breakdown_from_json(boost::json::value(3)), std::runtime_error);

  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  print_model_breakdown(out, by_model);
  std::fclose(out);
  const std::string printed(text, size);
  std::free(text);
  EXPECT_NE(printed.find("by model"), std::string::npos) << printed;
  EXPECT_NE(printed.find("TPOT p50 / p99 ms"), std::string::npos) << printed;
  EXPECT_NE(printed.find("    fast                     "), std::string::npos) << printed;
  EXPECT_NE(printed.find("a-much-longer-model-name"), std::string::npos) << printed;
}

}  // namespace
}  // namespace infergate::bench
