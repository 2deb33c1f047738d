#include "openai/model_list.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace infergate::openai {
namespace {

TEST(ModelList, RoundTripAndOllamaShape) {
  const std::vector<std::string> ids{"a", "b"};
  EXPECT_EQ(parse_model_list(model_list_json(ids, "me")), ids);
  EXPECT_EQ(parse_model_list(R"({"models":[{"name":"llama3"}]})"), std::vector<std::string>{"llama3"});
  EXPECT_FALSE(parse_model_list("[]"));
}

TEST(ModelList, OneModelIsTheObjectTheListHolds) {
  EXPECT_EQ(model_json("llama-3.3-70b", "me"),
            R"({"id":"llama-3.3-70b","object":"model","created":0,"owned_by":"me"})");
}

TEST(ModelInPath, ReadsTheIdPercentDecodedSlashesIncluded) {
  EXPECT_EQ(model_in_path("/v1/models/gemma-4-31b"), "gemma-4-31b");
  EXPECT_EQ(model_in_path("/v1/models/meta-llama%2FLlama-3.1-8B"), "meta-llama/Llama-3.1-8B");  // encodeURIComponent
  EXPECT_EQ(model_in_path("/v1/models/meta-llama/Llama-3.1-8B"), "meta-llama/Llama-3.1-8B");
  EXPECT_EQ(model_in_path("/v1/models/qwen%3a7b"), "qwen:7b");
  EXPECT_EQ(model_in_path("/v1/models/a%20b"), "a b");
}

TEST(ModelInPath, OtherPathsAreNoneAndOddEscapesStayAsWritten) {
  EXPECT_FALSE(model_in_path("/v1/models"));
  EXPECT_FALSE(model_in_path("/v1/models/"));
  EXPECT_FALSE(model_in_path("/v1/modelsx"));
  EXPECT_FALSE(model_in_path("/models/a"));
  EXPECT_EQ(model_in_path("/v1/models/a%2"), "a%2");
  EXPECT_EQ(model_in_path("/v1/models/a%zz"), "a%zz");
  EXPECT_EQ(model_in_path("/v1/models/%"), "%");
  EXPECT_EQ(model_in_path("/v1/models/x%FF"), "x%FF");  // no UTF-8: no model's name, and JSON stays valid
  EXPECT_EQ(model_in_path("/v1/models/%C3%A9t%C3%A9"), "\xC3\xA9t\xC3\xA9");
}

}  // namespace
}  // namespace infergate::openai
