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

// With SLOs, each model is held to them over its own requests: a slow model breaks them while a
// fast one meets them, in the lines and in the JSON.
TEST(ModelBreakdown, EachModelIsHeldToTheSlosOverItsOwnRequests) {
  std::vector<RequestRecord> records;
  for (int i = 0; i < 20; ++i) {
    records.push_back(answered(static_cast<std::uint32_t>(i % 2), i % 2 == 0 ? 100 : 900, 5));
  }
  const std::vector<std::string> models{"fast", "slow"};
  const ModelSummaries by_model = summarize_by_model(records, models);
  const std::vector<Slo> slos = parse_slos("ttft_p99=500ms");
  const std::vector<Goodput> goodputs = goodput_by_model(records, by_model, slos);
  ASSERT_EQ(goodputs.size(), 2u);
  EXPECT_TRUE(goodputs[0].met);
  EXPECT_EQ(goodputs[0].good, 10u);
  EXPECT_FALSE(goodputs[1].met);
  EXPECT_EQ(goodputs[1].good, 0u);
  EXPECT_TRUE(goodput_by_model(records, by_model, {}).empty());

  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  print_model_breakdown(out, by_model, goodputs);
  std::fclose(out);
  const std::string printed(text, size);
  std::free(text);
  EXPECT_NE(printed.find("  good req/s  SLOs\n"), std::string::npos) << printed;
  const std::size_t slow = printed.find("    slow ");
  ASSERT_NE(slow, std::string::npos) << printed;
  EXPECT_NE(printed.find("  met\n"), std::string::npos) << printed;
  EXPECT_LT(printed.find("  met\n"), slow) << printed;
  EXPECT_NE(printed.find("broken: ttft_p99 900.0ms > 500ms", slow), std::string::npos) << printed;

  const boost::json::object json = model_breakdown_json(by_model, goodputs, slos);
  EXPECT_EQ(json.at("fast").at("goodput").at("met"), true);
  EXPECT_EQ(json.at("slow").at("goodput").at("met"), false);
  EXPECT_EQ(json.at("slow").at("goodput").at("good_requests").to_number<int>(), 0);
  EXPECT_FALSE(model_breakdown_json(by_model).at("fast").as_object().contains("goodput"));
  EXPECT_EQ(model_breakdown_from_json(json)[1].second.completed, 10u);
}

}  // namespace
}  // namespace infergate::bench
