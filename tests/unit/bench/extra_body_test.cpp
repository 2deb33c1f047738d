#include "bench/extra_body.hpp"

#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <stdexcept>
#include <string>

namespace infergate::bench {
namespace {

std::string refusal(const char* text) {
  try {
    (void)parse_extra_body(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ExtraBody, AnObjectsMembersAreKeptAsWritten) {
  const auto body =
      parse_extra_body(R"({"temperature":0,"top_p":0.9,"chat_template_kwargs":{"enable_thinking":false}})");
  EXPECT_EQ(boost::json::serialize(body),
            R"({"temperature":0,"top_p":9E-1,"chat_template_kwargs":{"enable_thinking":false}})");
  EXPECT_TRUE(parse_extra_body("{}").empty());
}

TEST(ExtraBody, WhatIsNotAnObjectIsRefusedSayingWhy) {
  EXPECT_NE(refusal("[1]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(refusal("\"temperature=0\"").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(refusal(R"({"temperature":)").find("not valid JSON: it ends before the JSON value does"),
            std::string::npos);
  EXPECT_NE(refusal(R"({'temperature':0})").find("not valid JSON: syntax error at line 1, column 2"),
            std::string::npos);
}

TEST(ExtraBody, MembersTheBenchmarkSetsAreRefusedNamingTheirOption) {
  EXPECT_EQ(refusal(R"({"temperature":0,"max_tokens":5})"), "\"max_tokens\" is set by --output-tokens");
  EXPECT_EQ(refusal(R"({"model":"x"})"), "\"model\" is set by --model");
  EXPECT_EQ(refusal(R"({"stream":false})"), "\"stream\" is set by --no-stream");
  EXPECT_NE(refusal(R"({"max_completion_tokens":5})").find("--output-tokens"), std::string::npos);
  EXPECT_NE(refusal(R"({"ignore_eos":false})").find("--no-ignore-eos"), std::string::npos);
  EXPECT_NE(refusal(R"({"min_tokens":1})").find("--no-ignore-eos"), std::string::npos);
  EXPECT_NE(refusal(R"({"stream_options":{"continuous_usage_stats":true}})").find("include_usage"), std::string::npos);
  EXPECT_NE(refusal(R"({"n":2})").find("measures one"), std::string::npos);
  for (const char* prompt : {R"({"messages":[]})", R"({"prompt":"x"})", R"({"input":"x"})"}) {
    EXPECT_NE(refusal(prompt).find("the workload's prompt"), std::string::npos) << prompt;
  }
}

}  // namespace
}  // namespace infergate::bench
