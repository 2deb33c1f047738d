#include "http/url.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace infergate::http {
namespace {

TEST(Url, PlainHttpWithPortAndPath) {
  const Url url = parse_url("http://127.0.0.1:8000/v1/");
  EXPECT_FALSE(url.tls);
  EXPECT_EQ(url.host, "127.0.0.1");
  EXPECT_EQ(url.port, 8000);
  EXPECT_EQ(url.path, "/v1");
  EXPECT_EQ(url.authority(), "127.0.0.1:8000");
}

TEST(Url, HttpsDefaultsToPort443AndOmitsItFromTheAuthority) {
  const Url url = parse_url("https://api.groq.com/openai/v1");
  EXPECT_TRUE(url.tls);
  EXPECT_EQ(url.port, 443);
  EXPECT_EQ(url.path, "/openai/v1");
  EXPECT_EQ(url.authority(), "api.groq.com");
  EXPECT_EQ(url.to_string(), "https://api.groq.com/openai/v1");
}

TEST(Url, Ipv6Literal) {
  const Url url = parse_url("http://[::1]:9000");
  EXPECT_EQ(url.host, "::1");
  EXPECT_EQ(url.port, 9000);
  EXPECT_EQ(url.authority(), "[::1]:9000");
}

TEST(Url, RejectsWhatCannotBeABaseUrl) {
  EXPECT_THROW(parse_url("127.0.0.1:8000"), std::invalid_argument);
  EXPECT_THROW(parse_url("http://:80"), std::invalid_argument);
  EXPECT_THROW(parse_url("http://host:99999"), std::invalid_argument);
  EXPECT_THROW(parse_url("http://host:12x"), std::invalid_argument);
  EXPECT_THROW(parse_url("http://host/v1?x=1"), std::invalid_argument);
}

}  // namespace
}  // namespace infergate::http
