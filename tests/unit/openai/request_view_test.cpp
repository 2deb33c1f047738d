#include "openai/request_view.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace infergate::openai {
namespace {

TEST(RequestView, ReadsModelAndStreamingOptions) {
  RequestView v;
  ASSERT_FALSE(
      parse_request_view(R"({"model":"m","stream":true,"stream_options":{"include_usage":false},"x":[1]})", v));
  EXPECT_EQ(v.model, "m");
  EXPECT_TRUE(v.stream);
  EXPECT_TRUE(v.has_stream_options);
  EXPECT_FALSE(v.include_usage);
}

TEST(RequestView, NamesTheFieldItCannotRead) {
  RequestView v;
  EXPECT_EQ(parse_request_view(R"({"stream":true})", v)->param, "model");
  EXPECT_EQ(parse_request_view(R"({"model":1})", v)->param, "model");
  EXPECT_EQ(parse_request_view(R"({"model":"m","stream":"yes"})", v)->param, "stream");
  EXPECT_EQ(parse_request_view(R"({"model":"m","stream_options":{"include_usage":"y"}})", v)->param,
            "stream_options.include_usage");
  EXPECT_NE(parse_request_view("{oops", v)->message.find("not valid JSON"), std::string::npos);
}

TEST(RequestView, UsageIsSplicedInWithoutTouchingTheRest) {
  const std::string body = R"({ "model": "m", "messages": [{"role":"user","content":"é ☃"}], "stream": true })";
  const std::string spliced = with_usage_requested(body);
  EXPECT_EQ(spliced.substr(spliced.find("\"model\"")), body.substr(body.find("\"model\"")));
  const auto parsed = boost::json::parse(spliced).as_object();
  EXPECT_TRUE(parsed.at("stream_options").as_object().at("include_usage").as_bool());
  EXPECT_EQ(boost::json::parse(with_usage_requested("{}")).as_object().size(), 1u);
  EXPECT_EQ(boost::json::parse(with_usage_requested(" { } ")).as_object().size(), 1u);
}

TEST(RequestView, ModelIsRenamedInPlace) {
  const std::string body = R"({"messages":[{"role":"user","content":"say \"model\": x"}], "model" : "public", "n":1})";
  EXPECT_EQ(with_model(body, "org/upstream-\"q\""),
            R"({"messages":[{"role":"user","content":"say \"model\": x"}], "model" : "org/upstream-\"q\"", "n":1})");
  // A "model" key nested deeper is not the request's model.
  EXPECT_EQ(with_model(R"({"tools":[{"model":"inner"}],"model":"m"})", "u"),
            R"({"tools":[{"model":"inner"}],"model":"u"})");
  EXPECT_EQ(with_model(R"({"meta":{"model":"inner"}})", "u"), std::nullopt);
  EXPECT_EQ(with_model(R"({"model":7})", "u"), std::nullopt);
}

}  // namespace
}  // namespace infergate::openai
