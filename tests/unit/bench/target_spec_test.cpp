#include "bench/target_spec.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace infergate::bench {
namespace {

TEST(TargetSpec, NameUrlAndOptions) {
  const TargetSpec plain = parse_target_spec("vllm=http://127.0.0.1:8000");
  EXPECT_EQ(plain.name, "vllm");
  EXPECT_EQ(plain.url, "http://127.0.0.1:8000");
  EXPECT_TRUE(plain.model.empty());
  const TargetSpec groq =
      parse_target_spec("groq=https://api.groq.com/openai/v1,model=llama-3.1-8b-instant,api_key_env=GROQ_API_KEY");
  EXPECT_EQ(groq.url, "https://api.groq.com/openai/v1");
  EXPECT_EQ(groq.model, "llama-3.1-8b-instant");
  EXPECT_EQ(groq.api_key_env, "GROQ_API_KEY");
  EXPECT_FALSE(groq.price_in.has_value());
  const TargetSpec priced = parse_target_spec("gpu=http://h:8000,hourly_cost=2.5");
  EXPECT_EQ(priced.hourly_cost, 2.5);
  EXPECT_FALSE(priced.price_out.has_value());
  const TargetSpec api = parse_target_spec("groq=https://x/v1,price_in=0.05,price_out=0.08");
  EXPECT_EQ(api.price_in, 0.05);
  EXPECT_EQ(api.price_out, 0.08);
}

TEST(TargetSpec, MistakesAreNamed) {
  for (const char* bad : {"http://x", "=http://x", "a=127.0.0.1:8000", "a=http://x,model=", "a=http://x,colour=red",
                          "a=http://x,price_in=cheap", "a=http://x,hourly_cost=-1", "a=http://x,price_out=1e999"}) {
    EXPECT_THROW(parse_target_spec(bad), std::invalid_argument) << bad;
  }
  try {
    parse_target_spec("a=http://x,colour=red");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown option 'colour'"), std::string::npos) << e.what();
  }
  try {
    parse_target_spec("a=http://x,price_in=cheap");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("price_in 'cheap' is not a price in US dollars"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace infergate::bench
