#include "openai/stream_chunk.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace infergate::openai {
namespace {

TEST(StreamChunk, ContentDeltaCountsItsText) {
  ChunkView v;
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"index":0,"delta":{"content":" hello"},"finish_reason":null}]})", v));
  EXPECT_EQ(v.text_bytes, 6u);
  EXPECT_FALSE(v.finish_reason);
  EXPECT_FALSE(v.usage);
}

TEST(StreamChunk, RoleOnlyChunkCarriesNoText) {
  ChunkView v;
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})", v));
  EXPECT_EQ(v.text_bytes, 0u);
}

TEST(StreamChunk, ReasoningAndCompletionTextCount) {
  ChunkView v;
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"delta":{"reasoning_content":"abc"}}]})", v));
  EXPECT_EQ(v.text_bytes, 3u);
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"text":"abcd","finish_reason":"length"}]})", v));
  EXPECT_EQ(v.text_bytes, 4u);
  EXPECT_EQ(v.finish_reason, "length");
}

// An agent's turn may generate only a tool call: its name and arguments are the generated text,
// streamed or whole, in either API.
TEST(StreamChunk, ToolCallsAreGeneratedText) {
  ChunkView v;
  ASSERT_FALSE(parse_stream_chunk(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]})",
      v));
  EXPECT_EQ(v.text_bytes, 11u);
  ASSERT_FALSE(parse_stream_chunk(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]})", v));
  EXPECT_EQ(v.text_bytes, 8u);
  ASSERT_FALSE(parse_completion_response(
      R"({"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]})",
      v));
  EXPECT_EQ(v.text_bytes, 3u);
  EXPECT_EQ(v.finish_reason, "tool_calls");
  ASSERT_FALSE(parse_response_object(
      R"({"status":"completed","output":[{"type":"function_call","name":"f","arguments":"{\"a\":1}","call_id":"c"}],"usage":{"input_tokens":5,"output_tokens":4}})",
      v));
  EXPECT_EQ(v.text_bytes, 8u);
  ASSERT_FALSE(parse_response_stream_event(R"({"type":"response.function_call_arguments.delta","delta":"{\"a\""})", v));
  EXPECT_EQ(v.text_bytes, 4u);
}

TEST(StreamChunk, UsageAndTrace) {
  ChunkView v;
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34},
      "infergate_trace":{"arrival_ns":1,"first_token_ns":2,"last_token_ns":3}})",
                                  v));
  ASSERT_TRUE(v.usage);
  EXPECT_EQ(v.usage->prompt_tokens, 12);
  EXPECT_EQ(v.usage->completion_tokens, 34);
  ASSERT_TRUE(v.trace);
  EXPECT_EQ(v.trace->first_token_ns, 2);
}

TEST(StreamChunk, GroqUsageUnderXGroq) {
  ChunkView v;
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[],"x_groq":{"usage":{"prompt_tokens":5,"completion_tokens":6}}})", v));
  ASSERT_TRUE(v.usage);
  EXPECT_EQ(v.usage->completion_tokens, 6);
}

TEST(StreamChunk, ErrorObjectAndMalformedJson) {
  ChunkView v;
  ASSERT_FALSE(parse_stream_chunk(R"({"error":{"message":"overloaded","type":"server_error"}})", v));
  EXPECT_EQ(v.error, "overloaded");
  EXPECT_TRUE(parse_stream_chunk(R"({"choices":[)", v));
  EXPECT_TRUE(parse_stream_chunk("42", v));
}

TEST(StreamChunk, WholeResponseReadsTheMessage) {
  ChunkView v;
  ASSERT_FALSE(parse_completion_response(
      R"({"choices":[{"message":{"role":"assistant","content":"four"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}})",
      v));
  EXPECT_EQ(v.text_bytes, 4u);
  EXPECT_EQ(v.finish_reason, "stop");
}

TEST(StreamChunk, CollectsTheAnswersTextButNotReasoning) {
  ChunkView v;
  Reply content;
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"delta":{"content":"Hel"}}]})", v, &content));
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"delta":{"reasoning_content":"hmm"}}]})", v, &content));
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"delta":{"content":"lo"}}]})", v, &content));
  EXPECT_EQ(content.text, "Hello");
  Reply text;
  ASSERT_FALSE(parse_completion_response(R"({"choices":[{"text":"plain"}]})", v, &text));
  EXPECT_EQ(text.text, "plain");
}

TEST(StreamChunk, TheResponsesApisDeltasAreTextAndItsAnswerTextIsKept) {
  ChunkView v;
  Reply content;
  ASSERT_FALSE(parse_response_stream_event(R"({"type":"response.created","response":{"status":"in_progress"}})", v));
  EXPECT_EQ(v.text_bytes, 0u);
  EXPECT_FALSE(v.finish_reason);  // in progress is not an end
  ASSERT_FALSE(parse_response_stream_event(R"({"type":"response.output_text.delta","delta":"Hel"})", v, &content));
  EXPECT_EQ(v.text_bytes, 3u);
  ASSERT_FALSE(parse_response_stream_event(R"({"type":"response.reasoning_text.delta","delta":"hmm"})", v, &content));
  EXPECT_EQ(v.text_bytes, 3u);  // generated, but not the answer
  ASSERT_FALSE(parse_response_stream_event(R"({"type":"response.output_text.delta","delta":"lo"})", v, &content));
  ASSERT_FALSE(parse_response_stream_event(R"({"type":"response.output_text.done","text":"Hello"})", v, &content));
  EXPECT_EQ(v.text_bytes, 0u);
  EXPECT_EQ(content.text, "Hello");
}

TEST(StreamChunk, AnAnswersToolCallsAreKeptForTheNextTurn) {
  ChunkView v;
  Reply streamed;
  // Two calls streamed by index: each first names its call, the rest add arguments.
  for (const char* chunk : {
           R"({"choices":[{"delta":{"role":"assistant","content":null}}]})",
           R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function",)"
           R"("function":{"name":"get_weather","arguments":""}}]}}]})",
           R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]})",
           R"({"choices":[{"delta":{"tool_calls":[{"index":1,"id":"call_b","function":{"name":"get_time",)"
           R"("arguments":"{}"}}]}}]})",
           R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]})",
           R"({"choices":[{"delta":{"tool_calls":[{"index":999999999,"function":{"arguments":"x"}}]}}]})",
       }) {
    ASSERT_FALSE(parse_stream_chunk(chunk, v, &streamed)) << chunk;
  }
  EXPECT_TRUE(v.tool_call);
  ASSERT_FALSE(parse_stream_chunk(R"({"choices":[{"delta":{"content":"Hi"}}]})", v));
  EXPECT_FALSE(v.tool_call);
  ASSERT_EQ(streamed.tool_calls.size(), 2u);  // an index past any answer's calls is no call
  EXPECT_EQ(streamed.tool_calls[0].id, "call_a");
  EXPECT_EQ(streamed.tool_calls[0].name, "get_weather");
  EXPECT_EQ(streamed.tool_calls[0].arguments, R"({"city":"Paris"})");
  EXPECT_EQ(streamed.tool_calls[1].name, "get_time");
  EXPECT_EQ(streamed.text, "");

  Reply whole;
  ASSERT_FALSE(parse_completion_response(
      R"({"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_c","type":"function",)"
      R"("function":{"name":"lookup","arguments":"{\"q\":1}"}}]},"finish_reason":"tool_calls"}]})",
      v, &whole));
  ASSERT_EQ(whole.tool_calls.size(), 1u);
  EXPECT_TRUE(v.tool_call);
  EXPECT_EQ(whole.tool_calls[0].id, "call_c");
  EXPECT_EQ(whole.tool_calls[0].arguments, R"({"q":1})");

  // The Responses API's calls come whole: from the response, or from a stream's last event.
  const std::string output =
      R"("output":[{"type":"function_call","id":"fc_1","call_id":"call_d","name":"lookup","arguments":"{}"}])";
  Reply response;
  ASSERT_FALSE(parse_response_object(R"({"status":"completed",)" + output + "}", v, &response));
  ASSERT_EQ(response.tool_calls.size(), 1u);
  EXPECT_TRUE(v.tool_call);
  EXPECT_EQ(response.tool_calls[0].id, "call_d");
  Reply events;
  ASSERT_FALSE(parse_response_stream_event(
      R"({"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"{}"})", v, &events));
  EXPECT_TRUE(v.tool_call);
  EXPECT_TRUE(events.tool_calls.empty());
  ASSERT_FALSE(parse_response_stream_event(R"({"type":"response.output_text.delta","delta":"Hi"})", v, &events));
  EXPECT_FALSE(v.tool_call);
  ASSERT_FALSE(parse_response_stream_event(
      R"({"type":"response.completed","response":{"status":"completed",)" + output + "}}", v, &events));
  ASSERT_EQ(events.tool_calls.size(), 1u);
  EXPECT_EQ(events.tool_calls[0].name, "lookup");
}

TEST(StreamChunk, TheResponsesApisLastEventGivesTheUsageAndHowItEnded) {
  ChunkView v;
  ASSERT_FALSE(parse_response_stream_event(
      R"({"type":"response.completed","response":{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"not counted again"}]}],)"
      R"("usage":{"input_tokens":12,"output_tokens":30}},"infergate_trace":{"arrival_ns":1,"first_token_ns":2,"last_token_ns":3}})",
      v));
  EXPECT_EQ(v.text_bytes, 0u);
  EXPECT_EQ(v.finish_reason, "stop");
  ASSERT_TRUE(v.usage);
  EXPECT_EQ(v.usage->prompt_tokens, 12);
  EXPECT_EQ(v.usage->completion_tokens, 30);
  ASSERT_TRUE(v.trace);
  EXPECT_EQ(v.trace->last_token_ns, 3);
  ASSERT_FALSE(parse_response_stream_event(R"({"type":"response.incomplete","response":{"status":"incomplete"}})", v));
  EXPECT_EQ(v.finish_reason, "length");
  ASSERT_FALSE(parse_response_stream_event(
      R"({"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"}}})",
      v));
  EXPECT_EQ(v.error, "boom");
  ASSERT_FALSE(
      parse_response_stream_event(R"({"type":"error","code":"rate_limit_exceeded","message":"slow down"})", v));
  EXPECT_EQ(v.error, "slow down");
  ASSERT_FALSE(parse_response_stream_event(R"({"error":{"message":"cut by the gateway"}})", v));
  EXPECT_EQ(v.error, "cut by the gateway");
}

TEST(StreamChunk, AWholeResponseObjectReadsItsOutputText) {
  ChunkView v;
  Reply text;
  ASSERT_FALSE(parse_response_object(
      R"({"object":"response","status":"incomplete","error":null,"output":[{"type":"reasoning","summary":[]},)"
      R"({"type":"message","content":[{"type":"output_text","text":"four","annotations":[]},{"type":"output_text","text":" five"}]}],)"
      R"("usage":{"input_tokens":3,"output_tokens":2}})",
      v, &text));
  EXPECT_EQ(text.text, "four five");
  EXPECT_EQ(v.text_bytes, 9u);
  EXPECT_EQ(v.finish_reason, "length");
  EXPECT_FALSE(v.error);
  EXPECT_EQ(v.usage->completion_tokens, 2);
}

}  // namespace
}  // namespace infergate::openai
