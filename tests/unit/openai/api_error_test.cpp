#include "openai/api_error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace infergate::openai {
namespace {

TEST(RouteNotFound, APathWithoutV1SaysWhereTheApiIs) {
  EXPECT_EQ(route_not_found("POST", "/chat/completions").message,
            "No route for POST /chat/completions; did you mean /v1/chat/completions? (an OpenAI client's base URL "
            "ends in /v1)");
  EXPECT_NE(route_not_found("GET", "/models/x?a=1").message.find("did you mean /v1/models/x?a=1?"), std::string::npos);
  EXPECT_EQ(route_not_found("GET", "/v2/chat").message, "No route for GET /v2/chat");
  EXPECT_EQ(route_not_found("GET", "/chat/completions/more").message, "No route for GET /chat/completions/more");
}

TEST(EncodedBody, AContentCodingOtherThanIdentityIs415NamingIt) {
  EXPECT_FALSE(encoded_body(""));
  EXPECT_FALSE(encoded_body("identity"));
  EXPECT_FALSE(encoded_body("Identity"));
  const auto gzip = encoded_body("gzip");
  ASSERT_TRUE(gzip);
  EXPECT_EQ(gzip->status, 415);
  EXPECT_EQ(gzip->code, "unsupported_content_encoding");
  EXPECT_EQ(gzip->message,
            "the request body is sent with Content-Encoding: gzip, which this server does not decode; send it "
            "uncompressed");
}

}  // namespace
}  // namespace infergate::openai
