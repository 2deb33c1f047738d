#include "bench/workload.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "core/text_tokens.hpp"

namespace infergate::bench {
namespace {

// Answers of text alone, one per earlier turn.
std::vector<openai::Reply> text_replies(std::initializer_list<const char*> texts) {
  std::vector<openai::Reply> replies;
  for (const char* text : texts) {
    replies.push_back(openai::Reply{text, {}});
  }
  return replies;
}

namespace json = boost::json;

TEST(Workload, SyntheticPromptHasTheRequestedWordsAndAsksForExactOutput) {
  WorkloadOptions o;
  o.model = "m";
  o.input = LengthDistribution::fixed(300);
  o.output = LengthDistribution::fixed(40);
  const Workload w(o);
  const PreparedRequest r = w.make(0);
  EXPECT_EQ(r.input_tokens, 300);
  const json::object body = json::parse(r.body).as_object();
  EXPECT_EQ(body.at("model").as_string(), "m");
  EXPECT_EQ(count_words(body.at("messages").as_array()[0].as_object().at("content").as_string()), 300u);
  EXPECT_EQ(body.at("max_tokens").as_int64(), 40);
  EXPECT_EQ(body.at("min_tokens").as_int64(), 40);
  EXPECT_TRUE(body.at("ignore_eos").as_bool());
  EXPECT_TRUE(body.at("stream_options").as_object().at("include_usage").as_bool());
  EXPECT_EQ(w.make(0).body, r.body);  // deterministic
  EXPECT_NE(w.make(1).body, r.body);  // and different per request
}

TEST(Workload, AMixOfModelsAsksEachConversationsTurnsForItsOneModel) {
  WorkloadOptions o;
  o.model = "a";
  o.mix = parse_model_mix("a=1,b=1");
  o.turns = 3;
  const Workload w(o);
  EXPECT_EQ(w.model_names(), (std::vector<std::string>{"a", "b"}));
  int asked_b = 0;
  for (std::uint64_t c = 0; c < 40; ++c) {
    const PreparedRequest first = w.make_turn(c, 0, {});
    const std::string model(json::parse(first.body).at("model").as_string());
    EXPECT_EQ(model, w.model_names()[first.model]);
    const PreparedRequest last = w.make_turn(c, 2, text_replies({"one", "two"}));
    EXPECT_EQ(last.model, first.model);
    EXPECT_EQ(json::parse(last.body).at("model").as_string(), model);
    asked_b += first.model == 1 ? 1 : 0;
  }
  EXPECT_GT(asked_b, 5);
  EXPECT_LT(asked_b, 35);
  WorkloadOptions one;
  one.model = "m";
  EXPECT_EQ(Workload(one).model_names(), (std::vector<std::string>{"m"}));
  EXPECT_EQ(Workload(one).make(3).model, 0u);
}

TEST(Workload, ExtraBodyMembersGoIntoEveryRequestOfEveryEndpoint) {
  for (const auto endpoint : {openai::Endpoint::chat, openai::Endpoint::completions, openai::Endpoint::responses}) {
    WorkloadOptions o;
    o.model = "m";
    o.endpoint = endpoint;
    o.turns = endpoint == openai::Endpoint::completions ? 1 : 2;  // completions has no conversation
    o.extra_body = json::parse(R"({"temperature":0,"chat_template_kwargs":{"enable_thinking":false}})").as_object();
    const Workload w(o);
    for (const PreparedRequest& r :
         {w.make(0), w.multi_turn() ? w.make_turn(1, 1, text_replies({"an answer"})) : w.make(1)}) {
      const json::object body = json::parse(r.body).as_object();
      EXPECT_EQ(body.at("temperature").as_int64(), 0);
      EXPECT_FALSE(body.at("chat_template_kwargs").as_object().at("enable_thinking").as_bool());
      EXPECT_EQ(body.at("model").as_string(), "m");
    }
  }
}

TEST(Workload, PromptsFileWithChatAndPlainLines) {
  const std::string path = ::testing::TempDir() + "prompts.jsonl";
  {
    std::ofstream out(path);
    out << R"({"prompt": "one two three", "output_tokens": 7})"
        << "\n\n"
        << R"({"messages": [{"role": "user", "content": "four five"}]})"
        << "\n";
  }
  WorkloadOptions o;
  o.model = "m";
  o.prompts_file = path;
  const Workload w(o);
  EXPECT_EQ(w.make(0).input_tokens, 3);
  EXPECT_EQ(w.make(0).output_tokens, 7);
  EXPECT_EQ(w.make(1).input_tokens, 2);
  EXPECT_EQ(json::parse(w.make(1).body).as_object().at("messages"),
            json::parse(R"([{"role": "user", "content": "four five"}])"));  // sent as written
  EXPECT_EQ(w.make(2).input_tokens, 3);                                     // cycles
  std::remove(path.c_str());
}

TEST(Workload, BadPromptsFileNamesTheLine) {
  const std::string path = ::testing::TempDir() + "bad.jsonl";
  {
    std::ofstream out(path);
    out << R"({"prompt": "fine"})"
        << "\n"
        << "not json\n";
  }
  WorkloadOptions o;
  o.prompts_file = path;
  try {
    Workload w(o);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.jsonl:2"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(Workload, SharedPrefixesRepeatPerGroupAheadOfEachOwnPrompt) {
  WorkloadOptions o;
  o.model = "m";
  o.input = LengthDistribution::fixed(20);
  o.prefix_groups = 3;
  o.prefix_tokens = 64;
  const Workload w(o);
  auto messages = [&](std::uint64_t i) { return json::parse(w.make(i).body).as_object().at("messages").as_array(); };
  EXPECT_EQ(w.make(0).input_tokens, 84);
  const auto first = messages(0);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].as_object().at("role").as_string(), "system");
  EXPECT_EQ(count_words(first[0].as_object().at("content").as_string()), 64u);
  EXPECT_EQ(messages(3)[0], first[0]);  // same group
  EXPECT_NE(messages(3)[1], first[1]);  // own prompt
  EXPECT_NE(messages(1)[0], first[0]);  // another group

  o.endpoint = openai::Endpoint::completions;
  const Workload plain(o);
  const std::string prompt(json::parse(plain.make(0).body).as_object().at("prompt").as_string());
  EXPECT_EQ(count_words(prompt), 84u);
  EXPECT_TRUE(prompt.starts_with(std::string(first[0].as_object().at("content").as_string())));
}

TEST(Workload, SharedPrefixesNeedALengthAndSyntheticPrompts) {
  WorkloadOptions o;
  o.prefix_groups = 2;
  EXPECT_THROW(Workload{o}, std::runtime_error);
  o.prefix_tokens = 16;
  o.prompts_file = "/nonexistent.jsonl";
  EXPECT_THROW(Workload{o}, std::runtime_error);
}

json::array messages_of(const PreparedRequest& r) {
  return json::parse(r.body).as_object().at("messages").as_array();
}

// Conversations of three turns, each of ten words asking for five.
WorkloadOptions three_turns_of_ten_words() {
  WorkloadOptions o;
  o.model = "m";
  o.input = LengthDistribution::fixed(10);
  o.output = LengthDistribution::fixed(5);
  o.turns = 3;
  return o;
}

TEST(Workload, EachTurnCarriesTheHistoryWithTheServersReplies) {
  WorkloadOptions o = three_turns_of_ten_words();
  const Workload w(o);
  EXPECT_TRUE(w.multi_turn());
  EXPECT_EQ(w.turns(7), 3);
  const PreparedRequest first = w.make_turn(7, 0, {});
  EXPECT_EQ(first.body, w.make(7).body);  // turn 0 is the single request
  const PreparedRequest third = w.make_turn(7, 2, text_replies({"one two three", "four five"}));
  const json::array m = messages_of(third);
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0], messages_of(first)[0]);
  EXPECT_EQ(m[1].as_object().at("role").as_string(), "assistant");
  EXPECT_EQ(m[1].as_object().at("content").as_string(), "one two three");
  EXPECT_EQ(m[3].as_object().at("content").as_string(), "four five");
  EXPECT_EQ(m[4].as_object().at("role").as_string(), "user");
  EXPECT_NE(m[4], m[2]);  // a new question each turn
  EXPECT_EQ(third.input_tokens, 3 * 10 + 3 + 2);
  EXPECT_EQ(third.output_tokens, 5);
}

TEST(Workload, AnAnswerThatCalledToolsIsFollowedByTheirResultsAsAnAgentSendsThem) {
  WorkloadOptions o = three_turns_of_ten_words();
  // The first answer calls two tools (the second without an id), the second answers in text.
  std::vector<openai::Reply> replies(2);
  replies[0].tool_calls = {{"call_a", "get_weather", R"({"city": "Paris"})"}, {"", "get_time", "{}"}};
  replies[1].text = "sunny at noon";
  const Workload chat(o);
  const PreparedRequest third = chat.make_turn(7, 2, replies);
  const json::array m = messages_of(third);
  ASSERT_EQ(m.size(), 6u);  // user, assistant's calls, two results, assistant, user
  EXPECT_EQ(m[1].at("role"), "assistant");
  EXPECT_TRUE(m[1].at("content").is_null());
  const json::array& calls = m[1].at("tool_calls").as_array();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].at("id"), "call_a");
  EXPECT_EQ(calls[0].at("type"), "function");
  EXPECT_EQ(calls[0].at("function").at("name"), "get_weather");
  EXPECT_EQ(calls[0].at("function").at("arguments"), R"({"city": "Paris"})");
  EXPECT_EQ(calls[1].at("id"), "call_0_1");  // named by its turn and place
  EXPECT_EQ(m[2].at("role"), "tool");
  EXPECT_EQ(m[2].at("tool_call_id"), "call_a");
  // The turn's words are the first call's result, in place of a user's message.
  const json::array second_turn = messages_of(chat.make_turn(7, 1, text_replies({"x"})));
  EXPECT_EQ(m[2].at("content"), second_turn[2].at("content"));
  EXPECT_EQ(m[3].at("tool_call_id"), "call_0_1");
  EXPECT_EQ(m[3].at("content"), "done");
  EXPECT_EQ(m[4].at("content"), "sunny at noon");
  EXPECT_EQ(m[5].at("role"), "user");
  // Words: three turns of 10, each call's name and arguments (1 + 2, 1 + 1), "done", the answer.
  EXPECT_EQ(third.input_tokens, 3 * 10 + 3 + 2 + 1 + 3);

  o.endpoint = openai::Endpoint::responses;
  const Workload responses(o);
  const json::array items = json::parse(responses.make_turn(7, 2, replies).body).at("input").as_array();
  ASSERT_EQ(items.size(), 7u);
  EXPECT_EQ(items[1].at("type"), "function_call");
  EXPECT_EQ(items[1].at("call_id"), "call_a");
  EXPECT_EQ(items[1].at("name"), "get_weather");
  EXPECT_EQ(items[2].at("type"), "function_call");
  EXPECT_EQ(items[3].at("type"), "function_call_output");
  EXPECT_EQ(items[3].at("call_id"), "call_a");
  EXPECT_EQ(items[4].at("call_id"), "call_0_1");
  EXPECT_EQ(items[5].at("content"), "sunny at noon");
}

TEST(Workload, MultiTurnNeedsChatOrResponses) {
  WorkloadOptions o;
  o.turns = 2;
  o.endpoint = openai::Endpoint::completions;
  EXPECT_THROW(Workload{o}, std::runtime_error);
  o.endpoint = openai::Endpoint::embeddings;
  EXPECT_THROW(Workload{o}, std::runtime_error);
  o.endpoint = openai::Endpoint::responses;
  EXPECT_NO_THROW(Workload{o});
}

// A replayed trace's requests are sent as traced: blocks named by the same hash id carry the same
// text (the prefix their prompts shared), the rest is each request's own.
TEST(Workload, ATracesRequestsShareTheTextOfTheirBlocks) {
  const std::string path = ::testing::TempDir() + "replay.jsonl";
  std::ofstream(path) << R"({"timestamp": 0, "input_length": 600, "output_length": 7, "hash_ids": [1, 2]})"
                      << "\n"
                      << R"({"timestamp": 40, "input_length": 520, "hash_ids": [1, 9]})"
                      << "\n"
                      << R"({"timestamp": 90, "text_input": "as it was written"})"
                      << "\n";
  WorkloadOptions o;
  o.model = "m";
  o.output = LengthDistribution::fixed(11);
  o.trace_file = path;
  const Workload w(o);
  std::remove(path.c_str());
  ASSERT_EQ(w.trace().size(), 3u);
  auto prompt = [&](std::uint64_t i) {
    const PreparedRequest r = w.make(i);
    return std::string(
        json::parse(r.body).as_object().at("messages").as_array()[0].as_object().at("content").as_string());
  };
  const PreparedRequest first = w.make(0);
  EXPECT_EQ(first.input_tokens, 600);
  EXPECT_EQ(first.output_tokens, 7);
  EXPECT_EQ(w.make(1).output_tokens, 11);  // --output-tokens where the trace gives none
  EXPECT_EQ(count_words(prompt(0)), 600u);
  EXPECT_EQ(count_words(prompt(1)), 520u);
  auto first_words = [](const std::string& text, std::size_t n) {
    std::size_t at = 0;
    for (std::size_t k = 0; k < n; ++k) {
      at = text.find(' ', at + 1);
    }
    return text.substr(0, at);
  };
  EXPECT_EQ(first_words(prompt(0), kTraceBlockTokens), first_words(prompt(1), kTraceBlockTokens));  // block 1
  EXPECT_NE(first_words(prompt(0), kTraceBlockTokens + 8), first_words(prompt(1), kTraceBlockTokens + 8));
  EXPECT_EQ(prompt(2), "as it was written");
  EXPECT_EQ(w.make(2).input_tokens, 4);
  EXPECT_EQ(describe_lengths(o), "the requests of replay.jsonl, output 11 tokens where it gives no length");
  o.turns = 2;
  EXPECT_THROW(Workload{o}, std::runtime_error);  // the trace gives each request, one turn each
}

// --batch N: request i carries, as an input array, the texts requests iN .. iN+N-1 would carry
// one by one, and owes N vectors.
TEST(Workload, EmbeddingsBatchSendsTheTextsOfNSingleRequestsAsOneArray) {
  WorkloadOptions o;
  o.model = "m";
  o.endpoint = openai::Endpoint::embeddings;
  o.input = LengthDistribution::parse("uniform:10,40");
  const Workload single(o);
  o.batch = 3;
  const Workload batched(o);
  const PreparedRequest r = batched.make(1);
  EXPECT_EQ(r.inputs, 3);
  const json::array inputs = json::parse(r.body).as_object().at("input").as_array();
  ASSERT_EQ(inputs.size(), 3u);
  int tokens = 0;
  for (std::uint64_t j = 0; j < 3; ++j) {
    const PreparedRequest alone = single.make(3 + j);
    EXPECT_EQ(inputs[j].as_string(), json::parse(alone.body).as_object().at("input").as_string());
    tokens += alone.input_tokens;
  }
  EXPECT_EQ(r.input_tokens, tokens);
  EXPECT_EQ(single.make(0).inputs, 1);
  EXPECT_EQ(describe_lengths(o), "input uniform:10,40 tokens to embed, 3 texts a request");
  WorkloadOptions chat;
  chat.batch = 2;
  EXPECT_THROW(Workload{chat}, std::runtime_error);  // only embeddings take several inputs
}

TEST(Workload, EmbeddingsSendOneTextToEmbedAndAskForNoOutput) {
  WorkloadOptions o;
  o.model = "m";
  o.endpoint = openai::Endpoint::embeddings;
  o.input = LengthDistribution::fixed(64);
  o.prefix_groups = 2;
  o.prefix_tokens = 16;
  o.extra_body = json::parse(R"({"dimensions":256})").as_object();
  const Workload w(o);
  const PreparedRequest r = w.make(0);
  EXPECT_EQ(r.input_tokens, 16 + 64);
  EXPECT_EQ(r.output_tokens, 0);
  const json::object body = json::parse(r.body).as_object();
  EXPECT_EQ(count_words(body.at("input").as_string()), 80u);
  EXPECT_EQ(body.at("encoding_format").as_string(), "base64");  // as the openai SDKs ask
  EXPECT_EQ(body.at("dimensions").as_int64(), 256);
  for (const char* generating : {"max_tokens", "min_tokens", "ignore_eos", "stream", "stream_options", "prompt"}) {
    EXPECT_FALSE(body.contains(generating)) << generating;
  }
  EXPECT_EQ(describe_lengths(o), "input 64 tokens after a 16-token shared prefix (2 groups) to embed");

  const std::string path = ::testing::TempDir() + "embed_prompts.jsonl";
  {
    std::ofstream out(path);
    out << R"({"messages": [{"role": "user", "content": "four five"}]})"
        << "\n";
  }
  WorkloadOptions chat_file;
  chat_file.endpoint = openai::Endpoint::embeddings;
  chat_file.prompts_file = path;
  EXPECT_THROW(Workload{chat_file}, std::runtime_error);  // 'messages' is a conversation, not a text
  std::remove(path.c_str());
}

TEST(Workload, TheResponsesApiTakesTheConversationAsInputAndItsOwnLimit) {
  WorkloadOptions o;
  o.model = "m";
  o.endpoint = openai::Endpoint::responses;
  o.input = LengthDistribution::fixed(10);
  o.output = LengthDistribution::fixed(5);
  o.turns = 2;
  o.stream = true;
  const Workload w(o);
  const json::object body = json::parse(w.make_turn(3, 1, text_replies({"one two"})).body).as_object();
  const json::array& input = body.at("input").as_array();
  ASSERT_EQ(input.size(), 3u);
  EXPECT_EQ(input[1].as_object().at("role").as_string(), "assistant");
  EXPECT_EQ(input[1].as_object().at("content").as_string(), "one two");
  EXPECT_EQ(body.at("max_output_tokens").as_int64(), 5);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_FALSE(body.contains("messages"));
  EXPECT_FALSE(body.contains("stream_options"));  // its stream ends with the usage unasked
  EXPECT_TRUE(body.at("stream").as_bool());
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Workload, ShareGptConversationsGiveTurnsAndAnswerLengths) {
  const std::string path = write_file("sharegpt.json", R"(  [
    {"id": "a", "conversations": [
      {"from": "human", "value": "what is a cat"}, {"from": "gpt", "value": "a small furry animal"},
      {"from": "human", "value": "and a dog"}, {"from": "gpt", "value": "a loyal one"}]},
    {"id": "only-a-question", "conversations": [{"from": "human", "value": "hello?"}]},
    {"id": "b", "conversations": [{"from": "system", "value": "be brief"},
      {"from": "user", "value": "why"}, {"from": "assistant", "value": "because"}]}
  ])");
  WorkloadOptions o;
  o.model = "m";
  o.prompts_file = path;
  const Workload single(o);
  EXPECT_EQ(single.turns(0), 1);  // one turn unless --turns asks for more
  const PreparedRequest a = single.make(0);
  EXPECT_EQ(a.input_tokens, 4);
  EXPECT_EQ(a.output_tokens, 4);  // the recorded answer's words
  EXPECT_EQ(messages_of(a)[0].as_object().at("content").as_string(), "what is a cat");
  const PreparedRequest b = single.make(1);  // the question-only entry was skipped
  EXPECT_EQ(messages_of(b)[0].as_object().at("content").as_string(), "why");
  EXPECT_EQ(b.output_tokens, 1);

  o.turns = 5;
  const Workload multi(o);
  EXPECT_EQ(multi.turns(0), 2);  // as many as it recorded
  EXPECT_EQ(multi.turns(1), 1);
  const PreparedRequest second = multi.make_turn(0, 1, text_replies({"purr"}));
  EXPECT_EQ(messages_of(second)[2].as_object().at("content").as_string(), "and a dog");
  EXPECT_EQ(second.output_tokens, 3);
  EXPECT_EQ(second.input_tokens, 4 + 1 + 3);
  std::remove(path.c_str());
}

TEST(Workload, ShareGptLinesInJsonlAndABadArray) {
  const std::string lines =
      write_file("sharegpt.jsonl",
                 R"({"conversations": [{"from": "human", "value": "hi there"}, {"from": "gpt", "value": "hello"}]})"
                 "\n");
  WorkloadOptions o;
  o.prompts_file = lines;
  EXPECT_EQ(Workload(o).make(0).input_tokens, 2);
  const std::string bad = write_file("bad.json", "[\n  {\"conversations\": []},\n  {\"conversations\": [}\n]");
  o.prompts_file = bad;
  try {
    Workload w(o);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("ShareGPT"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not valid JSON: syntax error at line 3, column 22"), std::string::npos)
        << e.what();
  }
  const std::string empty = write_file("empty.json", R"([{"conversations": []}])");
  o.prompts_file = empty;
  EXPECT_THROW(Workload{o}, std::runtime_error);
  std::remove(lines.c_str());
  std::remove(bad.c_str());
  std::remove(empty.c_str());
}

// Editors on Windows start a UTF-8 file with a byte order mark; JSONL and ShareGPT files alike.
TEST(Workload, APromptsFileMayStartWithAByteOrderMark) {
  WorkloadOptions o;
  o.model = "m";
  o.prompts_file = write_file("bom.jsonl", "\xEF\xBB\xBF{\"prompt\": \"one two\"}\r\n{\"prompt\": \"three\"}\r\n");
  EXPECT_EQ(Workload(o).make(0).input_tokens, 2);
  o.prompts_file = write_file("bom.json",
                              "\xEF\xBB\xBF[{\"conversations\": [{\"from\": \"human\", \"value\": \"a b c\"}, "
                              "{\"from\": \"gpt\", \"value\": \"d e\"}]}]");
  EXPECT_EQ(Workload(o).make(0).output_tokens, 2);
}

TEST(Workload, TheLengthsDescribedAreThoseSent) {
  WorkloadOptions o;
  o.input = LengthDistribution::fixed(100);
  o.output = LengthDistribution::fixed(20);
  EXPECT_EQ(describe_lengths(o), "input 100 / output 20 tokens");
  o.prefix_groups = 4;
  o.prefix_tokens = 64;
  EXPECT_EQ(describe_lengths(o), "input 100 after a 64-token shared prefix (4 groups) / output 20 tokens");
  o.prefix_groups = 0;
  o.prompts_file = "/data/sharegpt.json";
  EXPECT_EQ(describe_lengths(o), "prompts from sharegpt.json, output 20 tokens where the file gives no length");
}

}  // namespace
}  // namespace infergate::bench
