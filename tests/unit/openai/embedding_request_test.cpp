#include "openai/embedding_request.hpp"

#include <gtest/gtest.h>

namespace infergate::openai {
namespace {

std::optional<ApiError> parse_embedding(std::string_view body, EmbeddingRequest& out) {
  return parse_embedding_request(body, out);
}

std::string embedding_refusal(std::string_view body) {
  EmbeddingRequest request;
  const auto error = parse_embedding(body, request);
  return error ? error->message + " [" + error->param.value_or("") + "]" : "";
}

TEST(EmbeddingRequest, EveryInputFormOpenAiTakes) {
  EmbeddingRequest r;
  ASSERT_FALSE(parse_embedding(R"({"model":"m","input":"three words here"})", r));
  EXPECT_EQ(r.model, "m");
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.inputs[0].tokens, 3u);
  EXPECT_FALSE(r.base64);
  EXPECT_FALSE(r.dimensions);

  ASSERT_FALSE(parse_embedding(R"({"model":"m","input":["a b","c","a b"],"encoding_format":"base64"})", r));
  ASSERT_EQ(r.inputs.size(), 3u);
  EXPECT_EQ(r.inputs[0].tokens, 2u);
  EXPECT_EQ(r.inputs[1].tokens, 1u);
  EXPECT_EQ(r.inputs[0].hash, r.inputs[2].hash);  // equal inputs, equal vectors
  EXPECT_NE(r.inputs[0].hash, r.inputs[1].hash);
  EXPECT_TRUE(r.base64);

  ASSERT_FALSE(parse_embedding(R"({"model":"m","input":[1,2,3,4],"dimensions":64,"user":"u"})", r));
  ASSERT_EQ(r.inputs.size(), 1u);  // one input given as token ids
  EXPECT_EQ(r.inputs[0].tokens, 4u);
  EXPECT_EQ(r.dimensions, 64);

  ASSERT_FALSE(parse_embedding(R"({"model":"m","input":[[1,2],[7],[1,2]],"encoding_format":"float"})", r));
  ASSERT_EQ(r.inputs.size(), 3u);
  EXPECT_EQ(r.inputs[0].tokens, 2u);
  EXPECT_EQ(r.inputs[0].hash, r.inputs[2].hash);
  EXPECT_FALSE(r.base64);
}

TEST(EmbeddingRequest, EachRefusalNamesItsField) {
  EXPECT_EQ(embedding_refusal(R"({"input":"x"})"), "'model' is required [model]");
  EXPECT_EQ(embedding_refusal(R"({"model":"m"})"), "'input' is required [input]");
  EXPECT_EQ(embedding_refusal(R"({"model":"m","input":"   "})"),
            "'input' is empty; each input needs at least one token [input]");
  EXPECT_EQ(embedding_refusal(R"({"model":"m","input":[]})"),
            "'input' is an empty array; give at least one input [input]");
  EXPECT_EQ(embedding_refusal(R"({"model":"m","input":["a",5]})"),
            "'input[1]' must be a string or an array of token ids, got an integer [input[1]]");
  EXPECT_EQ(embedding_refusal(R"({"model":"m","input":[[1,-2]]})"),
            "'input[0][1]' must be a token id (an integer from 0), got an integer [input[0][1]]");
  EXPECT_EQ(embedding_refusal(R"({"model":"m","input":[[]]})"),
            "'input[0]' is empty; each input needs at least one token [input[0]]");
  EXPECT_EQ(embedding_refusal(R"({"model":"m","input":{"a":1}})"),
            "'input' must be a string, an array of strings or an array of token ids, got an object [input]");
  EXPECT_EQ(embedding_refusal(R"({"model":"m","input":"x","encoding_format":"hex"})"),
            "'encoding_format' is 'hex'; it must be \"float\" or \"base64\" [encoding_format]");
  EXPECT_EQ(embedding_refusal(R"({"model":"m","input":"x","dimensions":0})"),
            "'dimensions' is 0; it must be at least 1 [dimensions]");
  EXPECT_EQ(embedding_refusal(R"({"model":"m","input":"x","dimensions":"8"})"),
            "'dimensions' must be an integer, got a string [dimensions]");
  EXPECT_EQ(embedding_refusal(R"({"model":"m","input":"x","user":3})"),
            "'user' must be a string, got an integer [user]");
  EXPECT_NE(embedding_refusal(R"({"model":"m","input":)").find("not valid JSON"), std::string::npos);
  EXPECT_NE(embedding_refusal("[1]").find("must be a JSON object, got an array"), std::string::npos);

  std::string many = R"({"model":"m","input":[)";
  for (std::size_t i = 0; i <= kMaxEmbeddingInputs; ++i) {
    many += i == 0 ? "\"a\"" : ",\"a\"";
  }
  EXPECT_EQ(embedding_refusal(many + "]}"), "'input' holds 2049 inputs; at most 2048 go in one request [input]");
}

TEST(EmbeddingRequest, NumbersPastInt64AreRefusedOrTooLargeNeverACrash) {
  EmbeddingRequest r;
  ASSERT_FALSE(parse_embedding(R"({"model":"m","input":[18446744073709551615],"dimensions":18446744073709551615})", r));
  EXPECT_EQ(r.inputs[0].tokens, 1u);
  EXPECT_EQ(r.dimensions, INT64_MAX);
}

}  // namespace
}  // namespace infergate::openai
