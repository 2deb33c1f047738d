#include "openai/outgoing_body.hpp"

#include <gtest/gtest.h>

#include "openai/request_view.hpp"

#include <boost/json/parse.hpp>

namespace infergate::openai {
namespace {

std::string usage_requested(std::string_view body) {
  OutgoingBody out(body);
  out.request_usage();
  return out.joined();
}

// The usage asked for as the gateway does: the request view first counts the stream_options.
std::string usage_asked(std::string_view body) {
  RequestView view;
  EXPECT_FALSE(parse_request_view(body, view)) << body;
  OutgoingBody out(body);
  out.request_usage(view.stream_options_members);
  return out.joined();
}

std::optional<std::string> renamed(std::string_view body, std::string_view model) {
  OutgoingBody out(body);
  if (!out.rename_model(model)) {
    return std::nullopt;
  }
  return out.joined();
}

TEST(OutgoingBody, UsageIsSplicedInWithoutTouchingTheRest) {
  const std::string body = R"({ "model": "m", "messages": [{"role":"user","content":"é ☃"}], "stream": true })";
  const std::string spliced = usage_requested(body);
  EXPECT_EQ(spliced.substr(spliced.find("\"model\"")), body.substr(body.find("\"model\"")));
  const auto parsed = boost::json::parse(spliced).as_object();
  EXPECT_TRUE(parsed.at("stream_options").as_object().at("include_usage").as_bool());
  EXPECT_EQ(boost::json::parse(usage_requested("{}")).as_object().size(), 1u);
  EXPECT_EQ(boost::json::parse(usage_requested(" { } ")).as_object().size(), 1u);
}

// A client that sends stream_options without asking for the usage still has it asked for, in its
// own object, so that the gateway knows the tokens (its relay removes the chunk again). Adding a
// second stream_options beside the client's would leave it to the upstream's parser which counts.
TEST(OutgoingBody, UsageIsAskedForInTheClientsOwnStreamOptions) {
  EXPECT_EQ(usage_asked(R"({"model":"m","stream":true,"stream_options":{"include_usage":false}})"),
            R"({"model":"m","stream":true,"stream_options":{"include_usage":true}})");
  EXPECT_EQ(usage_asked(R"({"stream_options":{},"model":"m"})"),
            R"({"stream_options":{"include_usage":true},"model":"m"})");
  EXPECT_EQ(usage_asked(R"({"model":"m","stream_options": { "x":[1,"}"] } })"),
            R"({"model":"m","stream_options": {"include_usage":true, "x":[1,"}"] } })");
  EXPECT_EQ(usage_asked(R"({"model":"m","stream_options" : null })"),
            R"({"model":"m","stream_options" : {"include_usage":true} })");
  EXPECT_EQ(usage_asked(R"({"model":"m","stream_options":{"include_usage":null,"include_usage" : false }})"),
            R"({"model":"m","stream_options":{"include_usage":true,"include_usage" : true }})");
  // Repeated, or named with escapes: each one, whichever the upstream reads.
  EXPECT_EQ(usage_asked(R"({"model":"m","stream_options":{"include_usage":true},"stream_options":null})"),
            R"({"model":"m","stream_options":{"include_usage":true},"stream_options":{"include_usage":true}})");
  EXPECT_EQ(usage_asked(R"({"model":"m","stream_\u006fptions":{"include_u\u0073age":false}})"),
            R"({"model":"m","stream_\u006fptions":{"include_u\u0073age":true}})");
  // Deeper down, an include_usage is not the request's.
  EXPECT_EQ(
      usage_asked(R"({"model":"m","stream_options":{"x":{"include_usage":false}},"meta":{"stream_options":1}})"),
      R"({"model":"m","stream_options":{"include_usage":true,"x":{"include_usage":false}},"meta":{"stream_options":1}})");
  // With the model renamed too.
  const std::string body = R"({"model":"public","stream":true,"stream_options":{"include_usage":false}})";
  RequestView view;
  ASSERT_FALSE(parse_request_view(body, view));
  OutgoingBody out(body);
  out.request_usage(view.stream_options_members);
  ASSERT_TRUE(out.rename_model("upstream/name", view.model_members));
  EXPECT_EQ(out.joined(), R"({"model":"upstream/name","stream":true,"stream_options":{"include_usage":true}})");
  EXPECT_EQ(out.size(), out.joined().size());
}

TEST(OutgoingBody, ModelIsRenamedInPlace) {
  const std::string body = R"({"messages":[{"role":"user","content":"say \"model\": x"}], "model" : "public", "n":1})";
  EXPECT_EQ(renamed(body, "org/upstream-\"q\""),
            R"({"messages":[{"role":"user","content":"say \"model\": x"}], "model" : "org/upstream-\"q\"", "n":1})");
  EXPECT_EQ(renamed(body, "llama-3.1-8b-instant"),
            R"({"messages":[{"role":"user","content":"say \"model\": x"}], "model" : "llama-3.1-8b-instant", "n":1})");
  // A "model" key nested deeper is not the request's model.
  EXPECT_EQ(renamed(R"({"tools":[{"model":"inner"}],"model":"m"})", "u"),
            R"({"tools":[{"model":"inner"}],"model":"u"})");
  EXPECT_EQ(renamed(R"({"meta":{"model":"inner"}})", "u"), std::nullopt);
  EXPECT_EQ(renamed(R"({"model":7})", "u"), std::nullopt);
  EXPECT_EQ(renamed(R"({"model":"m"})", "tab\there"), R"({"model":"tab\there"})");
}

std::optional<std::string> renamed_each(std::string_view body, std::string_view model, int members) {
  OutgoingBody out(body);
  if (!out.rename_model(model, members)) {
    return std::nullopt;
  }
  return out.joined();
}

// The gateway routes on the last "model" (as a DOM does, and most parsers upstream); a body that
// repeats it or spells it with escapes must not reach the upstream with the public name.
TEST(OutgoingBody, EveryModelIsRenamedWhereTheBodyRepeatsOrEscapesIt) {
  EXPECT_EQ(renamed_each(R"({"model":"a","n":1,"model" : "public"})", "u", 2), R"({"model":"u","n":1,"model" : "u"})");
  EXPECT_EQ(renamed_each(R"({"model":7,"model":"public"})", "u", 2), R"({"model":"u","model":"u"})");
  EXPECT_EQ(renamed_each(R"({"model":{"x":[1,"}"]} ,"model":"p"})", "u", 2), R"({"model":"u" ,"model":"u"})");
  EXPECT_EQ(renamed_each(R"({"mod\u0065l":"public"})", "u", 1), R"({"mod\u0065l":"u"})");
  EXPECT_EQ(renamed_each(R"({"model":"a","m\u006fdel":"public","tools":[{"model":"x"}]})", "u", 2),
            R"({"model":"u","m\u006fdel":"u","tools":[{"model":"x"}]})");
  EXPECT_EQ(renamed_each(R"({"model":null,"model":[]})", "u", 2), std::nullopt);
  // Both edits with a repeated model: still valid JSON, the usage request first.
  const std::string body = R"({"model":"a","stream":true,"model":"public"})";
  OutgoingBody out(body);
  out.request_usage();
  ASSERT_TRUE(out.rename_model("upstream/\"q\"", 2));
  EXPECT_EQ(
      out.joined(),
      R"({"stream_options":{"include_usage":true},"model":"upstream/\"q\"","stream":true,"model":"upstream/\"q\""})");
}

TEST(OutgoingBody, BothEditsTogetherAreValidJsonAndTheBodyIsNotCopied) {
  const std::string body = R"({"model":"public","messages":[{"role":"user","content":"hi"}],"stream":true})";
  OutgoingBody out(body);
  EXPECT_EQ(out.pieces().size(), 1u);
  EXPECT_EQ(out.pieces()[0].data(), body.data());
  out.request_usage();
  ASSERT_TRUE(out.rename_model("upstream/name"));
  const std::string sent = out.joined();
  EXPECT_EQ(out.size(), sent.size());
  const auto parsed = boost::json::parse(sent).as_object();
  EXPECT_EQ(parsed.at("model").as_string(), "upstream/name");
  EXPECT_TRUE(parsed.at("stream_options").as_object().at("include_usage").as_bool());
  EXPECT_EQ(parsed.at("messages").as_array().size(), 1u);
  // Every piece but the two edits is a view of the client's bytes.
  std::size_t viewed = 0;
  for (const std::string_view piece : out.pieces()) {
    if (piece.data() >= body.data() && piece.data() + piece.size() <= body.data() + body.size()) {
      viewed += piece.size();
    }
  }
  EXPECT_EQ(viewed, body.size() - std::string_view(R"("public")").size());
}

}  // namespace
}  // namespace infergate::openai
