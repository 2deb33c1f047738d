#include "bench/workload.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "core/text_tokens.hpp"

namespace infergate::bench {
namespace {

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
  EXPECT_EQ(w.make(2).input_tokens, 3);  // cycles
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

}  // namespace
}  // namespace infergate::bench
