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
}

TEST(TargetSpec, MistakesAreNamed) {
  for (const char* bad : {"http://x", "=http://x", "a=127.0.0.1:8000", "a=http://x,model=", "a=http://x,colour=red"}) {
    EXPECT_THROW(parse_target_spec(bad), std::invalid_argument) << bad;
  }
  try {
    parse_target_spec("a=http://x,colour=red");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown option 'colour'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace infergate::bench
