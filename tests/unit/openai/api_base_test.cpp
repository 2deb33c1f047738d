#include "openai/api_base.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace infergate::openai {
namespace {

TEST(ApiBase, AppendsV1UnlessThePathEndsWithIt) {
  EXPECT_EQ(parse_api_base("http://127.0.0.1:8000").to_string(), "http://127.0.0.1:8000/v1");
  EXPECT_EQ(parse_api_base("http://127.0.0.1:8000/v1/").to_string(), "http://127.0.0.1:8000/v1");
  EXPECT_EQ(parse_api_base("https://api.groq.com/openai/v1").to_string(), "https://api.groq.com/openai/v1");
  EXPECT_EQ(parse_api_base("http://host/api").to_string(), "http://host/api/v1");
}

TEST(ApiBase, AnEndpointsUrlIsRefusedNamingTheBase) {
  const auto refusal = [](std::string_view text) -> std::string {
    try {
      (void)parse_api_base(text);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(refusal("http://127.0.0.1:8000/v1/chat/completions"),
            "'http://127.0.0.1:8000/v1/chat/completions' is the chat/completions endpoint's URL; give the API's base "
            "URL: http://127.0.0.1:8000/v1");
  EXPECT_EQ(refusal("https://api.groq.com/openai/v1/models/"),
            "'https://api.groq.com/openai/v1/models/' is the models endpoint's URL; give the API's base URL: "
            "https://api.groq.com/openai/v1");
  EXPECT_NE(refusal("http://host:8000/v1/completions").find("base URL: http://host:8000/v1"), std::string::npos);
  EXPECT_NE(refusal("http://host:8000/embeddings").find("base URL: http://host:8000"), std::string::npos);
}

TEST(ApiBase, APathEndingInAnApiPathNamesIt) {
  EXPECT_EQ(api_path_at_end("/v1/chat/completions"), "/chat/completions");
  EXPECT_EQ(api_path_at_end("/openai/v1/responses"), "/responses");
  EXPECT_FALSE(api_path_at_end("/v1"));
  EXPECT_FALSE(api_path_at_end(""));
}

}  // namespace
}  // namespace infergate::openai
