#include "bench/cost.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <stdexcept>

namespace infergate::bench {
namespace {

TEST(Price, ParsesEitherSideAndNamesABadEntry) {
  const Pricing p = parse_price("in=0.15,out=0.6");
  EXPECT_DOUBLE_EQ(*p.input_per_million, 0.15);
  EXPECT_DOUBLE_EQ(*p.output_per_million, 0.6);
  EXPECT_FALSE(parse_price("out=2").input_per_million.has_value());
  for (const char* bad : {"", "in", "in=x", "in=-1", "total=3", "in=1,,"}) {
    EXPECT_THROW(parse_price(bad), std::invalid_argument) << bad;
  }
  try {
    parse_price("in=0.1,cached=0.05");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'cached=0.05'"), std::string::npos) << e.what();
  }
}

TEST(Cost, PerTokenPricesChargePromptsAndOutput) {
  BenchSummary s;
  s.completed = 10;
  s.prompt_tokens = 1'000'000;
  s.output_tokens = 250'000;
  Pricing p;
  p.input_per_million = 0.2;
  p.output_per_million = 0.8;
  const Cost c = measure_cost(p, s, 1000);
  EXPECT_DOUBLE_EQ(*c.run_usd, 0.2 + 0.2);
  EXPECT_DOUBLE_EQ(*c.per_million_output_by_tokens, 0.4 / 0.25);
  EXPECT_DOUBLE_EQ(*c.per_request_usd, 0.04);
  EXPECT_FALSE(c.per_million_output_by_hour.has_value());
}

TEST(Cost, WithoutServerUsageThePromptsAskedForAreCharged) {
  BenchSummary s;
  s.completed = 1;
  s.requested_input_tokens = 2'000'000;
  s.output_tokens = 1'000'000;
  Pricing p;
  p.input_per_million = 1;
  EXPECT_DOUBLE_EQ(*measure_cost(p, s, 0).run_usd, 2.0);
}

TEST(Cost, HourlyHardwareAtTheMeasuredRate) {
  Pricing p;
  p.hourly = 3.6;
  const Cost c = measure_cost(p, BenchSummary{}, 1000);  // 3.6 M tokens an hour
  EXPECT_DOUBLE_EQ(*c.per_million_output_by_hour, 1.0);
  EXPECT_FALSE(c.run_usd.has_value());
  EXPECT_FALSE(measure_cost(p, BenchSummary{}, 0).per_million_output_by_hour.has_value());
}

// Embeddings generate nothing and are billed by what they take in: per million input tokens, by
// the per-token prices and by the hour at the input rate.
TEST(Cost, APromptOnlyRunIsPricedPerMillionInputTokens) {
  BenchSummary s;
  s.completed = 4;
  s.prompt_tokens = 500'000;
  Pricing p;
  p.input_per_million = 0.02;
  p.hourly = 3.6;
  const Cost c = measure_cost(p, s, 2000);  // 7.2 M input tokens an hour
  EXPECT_DOUBLE_EQ(*c.run_usd, 0.01);
  EXPECT_DOUBLE_EQ(*c.per_million_input_by_tokens, 0.02);
  EXPECT_DOUBLE_EQ(*c.per_request_usd, 0.0025);
  EXPECT_DOUBLE_EQ(*c.per_million_input_by_hour, 0.5);
  EXPECT_DOUBLE_EQ(c.input_tokens_per_s, 2000);
  EXPECT_FALSE(c.per_million_output_by_tokens.has_value());
  EXPECT_FALSE(c.per_million_output_by_hour.has_value());
  EXPECT_DOUBLE_EQ(*headline_per_million(c), 0.5);  // the hour's, as for output
  s.output_tokens = 100'000;                        // a generating run keeps its output figures
  const Cost generating = measure_cost(p, s, 2000);
  EXPECT_FALSE(generating.per_million_input_by_tokens.has_value());
  EXPECT_DOUBLE_EQ(*generating.per_million_output_by_hour, 0.5);
  EXPECT_DOUBLE_EQ(*headline_per_million(generating), 0.5);
  EXPECT_FALSE(headline_per_million(Cost{}).has_value());
}

// A result's cost reads back as it was written: its prices and its figures.
TEST(Cost, ReadsBackItsPricesAndFigures) {
  BenchSummary s;
  s.completed = 10;
  s.prompt_tokens = 1'000'000;
  s.output_tokens = 250'000;
  const Pricing p{0.2, std::nullopt, 3.6};
  const Cost c = measure_cost(p, s, 1000);
  const boost::json::object json = cost_json(p, c);
  const Pricing prices = pricing_from_cost_json(json);
  EXPECT_EQ(prices.input_per_million, p.input_per_million);
  EXPECT_FALSE(prices.output_per_million.has_value());
  EXPECT_EQ(prices.hourly, p.hourly);
  const Cost back = cost_from_json(json);
  EXPECT_EQ(back.run_usd, c.run_usd);
  EXPECT_EQ(back.per_million_output_by_hour, c.per_million_output_by_hour);
  EXPECT_EQ(back.per_request_usd, c.per_request_usd);
  EXPECT_DOUBLE_EQ(back.output_tokens_per_s, 1000);
  EXPECT_FALSE(back.per_million_input_by_tokens.has_value());
  EXPECT_THROW(pricing_from_cost_json(boost::json::object{{"hourly_usd", "3"}}), std::runtime_error);
}

}  // namespace
}  // namespace infergate::bench
