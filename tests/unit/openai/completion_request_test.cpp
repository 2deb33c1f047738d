#include "openai/completion_request.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace infergate::openai {
namespace {

std::optional<ApiError> parse_chat(std::string_view body, CompletionRequest& out) {
  return parse_completion_request(body, Endpoint::chat, out);
}

TEST(CompletionRequest, ReadsEveryFieldTheServerActsOn) {
  CompletionRequest r;
  auto error = parse_chat(R"({"model":"m","messages":[{"role":"system","content":"be brief"},
      {"role":"user","content":[{"type":"text","text":"one two three"}]}],
      "stream":true,"stream_options":{"include_usage":true},"max_tokens":100,
      "max_completion_tokens":50,"min_tokens":10,"ignore_eos":true,"temperature":0.7,"n":1,"seed":3})",
                          r);
  ASSERT_FALSE(error) << error->message;
  EXPECT_EQ(r.model, "m");
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
  EXPECT_EQ(r.max_tokens, 50);  // max_completion_tokens wins
  EXPECT_EQ(r.min_tokens, 10);
  EXPECT_TRUE(r.ignore_eos);
  EXPECT_EQ(r.prompt_words, 5u);
}

TEST(CompletionRequest, SamePromptSameHashDifferentPromptDifferentHash) {
  CompletionRequest a;
  CompletionRequest b;
  CompletionRequest c;
  ASSERT_FALSE(parse_chat(R"({"model":"m","messages":[{"role":"user","content":"hi there"}]})", a));
  ASSERT_FALSE(parse_chat(R"({"model":"m","messages":[{"role":"user","content":"hi there"}],"stream":false})", b));
  ASSERT_FALSE(parse_chat(R"({"model":"m","messages":[{"role":"user","content":"hi their"}]})", c));
  EXPECT_EQ(a.prompt_hash, b.prompt_hash);
  EXPECT_NE(a.prompt_hash, c.prompt_hash);
}

std::string chat_with(std::string_view system, std::string_view user, std::string_view role = "system") {
  return fmt::format(R"({{"model":"m","messages":[{{"role":"{}","content":"{}"}},{{"role":"user","content":"{}"}}]}})",
                     role, system, user);
}

std::string words(int n, std::string_view word) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += i ? " " : "";
    out += word;
  }
  return out;
}

TEST(CompletionRequest, PrefixBlocksMatchWhilePromptsAgree) {
  CompletionRequest a;
  CompletionRequest b;
  CompletionRequest c;
  CompletionRequest d;
  ASSERT_FALSE(parse_chat(chat_with(words(40, "rule"), "first question here"), a));
  ASSERT_FALSE(parse_chat(chat_with(words(40, "rule"), "another question entirely"), b));
  ASSERT_FALSE(parse_chat(chat_with(words(40, "rule"), "first question here", "developer"), c));
  ASSERT_FALSE(parse_chat(chat_with(words(41, "rule"), "x", "system"), d));
  // 43 words: two full blocks of 16, both inside the shared system prompt.
  ASSERT_EQ(a.prefix_blocks.size(), 2u);
  EXPECT_EQ(a.prefix_blocks, b.prefix_blocks);
  EXPECT_NE(a.prefix_blocks[0], c.prefix_blocks[0]);  // the role is part of the prompt
  EXPECT_EQ(a.prefix_blocks[1], d.prefix_blocks[1]);  // block 2 ends at word 32: same words before it
  CompletionRequest e;
  ASSERT_FALSE(parse_completion_request(R"({"model":"m","prompt":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]})",
                                        Endpoint::completions, e));
  EXPECT_EQ(e.prefix_blocks.size(), 1u);
}

TEST(CompletionRequest, CompletionsPromptFormsAreAccepted) {
  CompletionRequest r;
  ASSERT_FALSE(parse_completion_request(R"({"model":"m","prompt":"a b c"})", Endpoint::completions, r));
  EXPECT_EQ(r.prompt_words, 3u);
  ASSERT_FALSE(parse_completion_request(R"({"model":"m","prompt":["a b"]})", Endpoint::completions, r));
  EXPECT_EQ(r.prompt_words, 2u);
  ASSERT_FALSE(parse_completion_request(R"({"model":"m","prompt":[1,2,3,4]})", Endpoint::completions, r));
  EXPECT_EQ(r.prompt_words, 4u);
}

TEST(CompletionRequest, TheResponsesApisInputInstructionsAndLimitAreRead) {
  CompletionRequest r;
  ASSERT_FALSE(parse_completion_request(
      R"({"model":"m","instructions":"be brief","input":[{"role":"user","content":"a b c"},)"
      R"({"role":"user","content":[{"type":"input_text","text":"d e"}]},{"type":"function_call_output","call_id":"c",)"
      R"("output":"f"}],"max_output_tokens":7,"max_tokens":99,"stream":true})",
      Endpoint::responses, r));
  EXPECT_EQ(r.prompt_words, 8u);
  EXPECT_EQ(r.max_tokens, 7);
  EXPECT_TRUE(r.stream);
  ASSERT_FALSE(parse_completion_request(R"({"model":"m","input":"one two"})", Endpoint::responses, r));
  EXPECT_EQ(r.prompt_words, 2u);
  EXPECT_FALSE(r.max_tokens);
  EXPECT_EQ(parse_completion_request(R"({"model":"m"})", Endpoint::responses, r)->param, "input");
  EXPECT_EQ(parse_completion_request(R"({"model":"m","input":5})", Endpoint::responses, r)->param, "input");
  EXPECT_EQ(parse_completion_request(R"({"model":"m","input":"x","instructions":[]})", Endpoint::responses, r)->param,
            "instructions");
  EXPECT_EQ(parse_completion_request(R"({"model":"m","input":[{"content":3}]})", Endpoint::responses, r)->param,
            "input[0].content");
  EXPECT_EQ(
      parse_completion_request(R"({"model":"m","input":"x","max_output_tokens":0})", Endpoint::responses, r)->param,
      "max_output_tokens");
  // The simulator stores no response, so any earlier one is unknown to it.
  const auto previous =
      parse_completion_request(R"({"model":"m","input":"x","previous_response_id":"resp_1"})", Endpoint::responses, r);
  ASSERT_TRUE(previous);
  EXPECT_EQ(previous->param, "previous_response_id");
  EXPECT_NE(previous->message.find("'resp_1' not found"), std::string::npos);
  EXPECT_FALSE(
      parse_completion_request(R"({"model":"m","input":"x","previous_response_id":null})", Endpoint::responses, r));
}

struct BadCase {
  const char* body;
  const char* param;     // nullptr when the error names no field
  const char* fragment;  // must appear in the message
};

class CompletionRequestErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(CompletionRequestErrors, NamesTheFieldAndTheProblem) {
  CompletionRequest r;
  auto error = parse_chat(GetParam().body, r);
  ASSERT_TRUE(error) << GetParam().body;
  EXPECT_EQ(error->status, 400);
  EXPECT_EQ(error->type, "invalid_request_error");
  if (GetParam().param != nullptr) {
    ASSERT_TRUE(error->param);
    EXPECT_EQ(*error->param, GetParam().param);
  }
  EXPECT_NE(error->message.find(GetParam().fragment), std::string::npos) << error->message;
}

INSTANTIATE_TEST_SUITE_P(
    Table, CompletionRequestErrors,
    ::testing::Values(
        BadCase{"{not json", nullptr, "not valid JSON"}, BadCase{"[1,2]", nullptr, "must be a JSON object"},
        BadCase{R"({"messages":[{"role":"user","content":"x"}]})", "model", "'model' is required"},
        BadCase{R"({"model":7,"messages":[]})", "model", "must be a string, got an integer"},
        BadCase{R"({"model":"m"})", "messages", "'messages' is required"},
        BadCase{R"({"model":"m","messages":"hi"})", "messages", "must be an array"},
        BadCase{R"({"model":"m","messages":[]})", "messages", "at least one"},
        BadCase{R"({"model":"m","messages":[{"content":"x"}]})", "messages[0].role", "is required"},
        BadCase{R"({"model":"m","messages":[{"role":"user","content":5}]})", "messages[0].content",
                "a string or an array"},
        BadCase{R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":"5"})", "max_tokens",
                "must be an integer, got a string"},
        BadCase{R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":0})", "max_tokens",
                "at least 1"},
        BadCase{R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":4.1e100})", "max_tokens",
                "must be an integer"},
        BadCase{R"({"model":"m","messages":[{"role":"user","content":"x"}],"stream":"yes"})", "stream",
                "must be a boolean"},
        BadCase{R"({"model":"m","messages":[{"role":"user","content":"x"}],"stream_options":{"include_usage":1}})",
                "stream_options.include_usage", "must be a boolean"},
        BadCase{R"({"model":"m","messages":[{"role":"user","content":"x"}],"n":2})", "n", "n=1"},
        BadCase{R"({"model":"m","messages":[{"role":"user","content":"x"}],"temperature":"hot"})", "temperature",
                "must be a number"},
        BadCase{R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":5,"min_tokens":9})",
                "min_tokens", "must not exceed"}));

TEST(ApiError, SerialisesInTheOpenAiShape) {
  const ApiError e = model_not_found("nope");
  EXPECT_EQ(e.status, 404);
  EXPECT_EQ(
      e.to_json(),
      R"({"error":{"message":"The model 'nope' does not exist; GET /v1/models lists the models served here.","type":"invalid_request_error","param":"model","code":"model_not_found"}})");
}

TEST(ApiError, MessageFromAnyErrorBody) {
  EXPECT_EQ(error_message_from_body(R"({"error":{"message":"bad key"}})"), "bad key");
  EXPECT_EQ(error_message_from_body(R"({"error":"plain"})"), "plain");
  EXPECT_EQ(error_message_from_body(R"({"detail":"Not Found"})"), "Not Found");
  EXPECT_EQ(error_message_from_body("<html>oops</html>"), "<html>oops</html>");
  // What is not JSON goes into JSON (the access log, an error event): valid UTF-8, and cut at a
  // character's boundary.
  EXPECT_EQ(error_message_from_body("\xff\xfe<html>"), "\xef\xbf\xbd\xef\xbf\xbd<html>");
  const std::string page = std::string(299, 'a') + "\xe4\xb8\xad and more";
  EXPECT_EQ(error_message_from_body(page), std::string(299, 'a') + "...");
}

}  // namespace
}  // namespace infergate::openai
