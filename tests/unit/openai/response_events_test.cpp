#include "openai/response_events.hpp"

#include <gtest/gtest.h>

namespace infergate::openai {
namespace {

TEST(ResponseEvents, DeltasOfGeneratedOutputCarryTokens) {
  for (const char* type : {"response.output_text.delta", "response.reasoning_text.delta", "response.refusal.delta",
                           "response.function_call_arguments.delta"}) {
    EXPECT_TRUE(read_response_event(type, "{}").generated) << type;
  }
  for (const char* type : {"response.created", "response.output_text.done", "response.output_item.added", "error"}) {
    EXPECT_FALSE(read_response_event(type, "{}").generated) << type;
  }
}

TEST(ResponseEvents, TheUsageComesFromTheResponseTheStreamEndsWith) {
  const std::string_view completed =
      R"({"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":12,)"
      R"("input_tokens_details":{"cached_tokens":4},"output_tokens":30,"total_tokens":42}}})";
  for (const char* name : {"response.completed", ""}) {  // named, or known by its type
    const ResponseEvent e = read_response_event(name, completed);
    ASSERT_TRUE(e.usage) << name;
    EXPECT_EQ(e.usage->prompt_tokens, 12);
    EXPECT_EQ(e.usage->completion_tokens, 30);
    EXPECT_FALSE(e.generated);
  }
  EXPECT_EQ(read_response_event("response.incomplete", R"({"response":{"usage":{"input_tokens":1,"output_tokens":2}}})")
                .usage->completion_tokens,
            2);
  EXPECT_FALSE(read_response_event("response.failed", R"({"response":{"usage":null}})").usage);
  EXPECT_FALSE(read_response_event("response.completed", "{not json").usage);
  EXPECT_FALSE(read_response_event("", R"({"type":7})").generated);
}

}  // namespace
}  // namespace infergate::openai
