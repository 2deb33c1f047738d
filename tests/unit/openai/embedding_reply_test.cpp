#include "openai/embedding_reply.hpp"

#include <gtest/gtest.h>

namespace infergate::openai {
namespace {

TEST(EmbeddingReply, CountsVectorsTheirLengthAndTheUsage) {
  EmbeddingReply r;
  ASSERT_FALSE(parse_embedding_reply(
      R"({"object":"list","data":[{"embedding":[0.1,0.2,0.3]},{"embedding":[1,2,3]}],"usage":{"prompt_tokens":7,"total_tokens":7}})",
      r));
  EXPECT_EQ(r.vectors, 2u);
  EXPECT_EQ(r.dimensions, 3u);
  ASSERT_TRUE(r.usage);
  EXPECT_EQ(r.usage->prompt_tokens, 7);
  EXPECT_EQ(r.usage->completion_tokens, 0);

  // Two float32s are eight bytes: twelve letters, one of them padding.
  ASSERT_FALSE(parse_embedding_reply(R"({"data":[{"embedding":"AAAAAAAAgD8="}]})", r));
  EXPECT_EQ(r.dimensions, 2u);
  EXPECT_FALSE(r.usage);
  ASSERT_FALSE(parse_embedding_reply(R"({"data":[{"embedding":"=="}]})", r));
  EXPECT_EQ(r.dimensions, 0u);
}

TEST(EmbeddingReply, WhatIsNoEmbeddingsAnswerIsSaid) {
  EmbeddingReply r;
  EXPECT_EQ(parse_embedding_reply(R"({"choices":[]})", r), "without a 'data' array of embeddings");
  EXPECT_EQ(parse_embedding_reply(R"({"data":[{"embedding":[1]},{"index":1}]})", r),
            "data[1] without an 'embedding' (an array of floats or a base64 string)");
  EXPECT_EQ(parse_embedding_reply("[]", r), "not a JSON object");
  EXPECT_NE(parse_embedding_reply("{", r)->find("not valid JSON"), std::string::npos);
}

}  // namespace
}  // namespace infergate::openai
