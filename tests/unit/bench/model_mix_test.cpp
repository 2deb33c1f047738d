#include "bench/model_mix.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace infergate::bench {
namespace {

TEST(ModelMix, NamesTakeTheirWeightsAndANameAloneWeighsOne) {
  const std::vector<ModelShare> mix = parse_model_mix("llama3:8b=3,meta-llama/Llama-3.1-70B,qwen=0.5");
  ASSERT_EQ(mix.size(), 3u);
  EXPECT_EQ(mix[0].name, "llama3:8b");  // Ollama's tags and Hugging Face paths are names
  EXPECT_DOUBLE_EQ(mix[0].weight, 3);
  EXPECT_EQ(mix[1].name, "meta-llama/Llama-3.1-70B");
  EXPECT_DOUBLE_EQ(mix[1].weight, 1);
  EXPECT_DOUBLE_EQ(mix[2].weight, 0.5);
  EXPECT_EQ(parse_model_mix("gemma").size(), 1u);
  EXPECT_EQ(describe_mix(mix), "llama3:8b (66.7%) + meta-llama/Llama-3.1-70B (22.2%) + qwen (11.1%)");
}

TEST(ModelMix, AMistakeNamesTheEntry) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c :
       {Case{"a=0", "'0' is no weight"}, Case{"a=-1", "'-1' is no weight"}, Case{"a=x", "'x' is no weight"},
        Case{"a=2x", "'2x'"}, Case{"a=inf", "'inf'"}, Case{"a,,b", "names no model"}, Case{"=3", "names no model"},
        Case{"a,", "names no model"}, Case{"a,b,a=2", "'a' is given twice"}}) {
    try {
      parse_model_mix(c.text);
      ADD_FAILURE() << c.text;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << c.text << ": " << e.what();
    }
  }
}

TEST(ModelMix, ConversationsSpreadByWeightAndEachKeepsItsModel) {
  const std::vector<ModelShare> mix = parse_model_mix("a=3,b=1");
  int first = 0;
  constexpr int kConversations = 20'000;
  for (std::uint64_t c = 0; c < kConversations; ++c) {
    const std::size_t m = model_of_conversation(mix, 7, c);
    ASSERT_LT(m, 2u);
    EXPECT_EQ(m, model_of_conversation(mix, 7, c));
    first += m == 0 ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(first) / kConversations, 0.75, 0.015);
  // Another seed draws another spread; one model is always model 0.
  int differ = 0;
  for (std::uint64_t c = 0; c < 100; ++c) {
    differ += model_of_conversation(mix, 7, c) != model_of_conversation(mix, 8, c) ? 1 : 0;
  }
  EXPECT_GT(differ, 10);
  EXPECT_EQ(model_of_conversation(parse_model_mix("only"), 7, 3), 0u);
}

}  // namespace
}  // namespace infergate::bench
