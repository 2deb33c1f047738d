#include "bench/input_fit.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "core/text_tokens.hpp"

namespace infergate::bench {
namespace {

TEST(InputFit, TwoProbesGiveTheTemplateAndTheTokensAWord) {
  const TokenFit fit = fit_from_probes({128, 10 + 192}, {1024, 10 + 1536});
  EXPECT_DOUBLE_EQ(fit.tokens_per_word, 1.5);
  EXPECT_DOUBLE_EQ(fit.template_tokens, 10);
  EXPECT_FALSE(fit.counts_words());
  EXPECT_EQ(fit.words_for(400 - 10), 260);
  EXPECT_EQ(fit.tokens_for(260), 400);
  EXPECT_EQ(fit.words_for(-30), 1);  // a prompt shorter than the template is one word
  // The simulator counts words: the fit is the identity.
  EXPECT_TRUE(fit_from_probes({128, 128}, {1024, 1024}).counts_words());
  // A count below the line's start (a tokenizer merging words) is no negative template.
  EXPECT_DOUBLE_EQ(fit_from_probes({128, 100}, {1024, 1000}).template_tokens, 0);
}

TEST(InputFit, CountsThatDoNotGrowWithThePromptAreRefused) {
  for (const auto& [short_tokens, long_tokens] : {std::pair{300, 300}, {300, 200}}) {
    try {
      fit_from_probes({128, short_tokens}, {1024, long_tokens});
      ADD_FAILURE() << short_tokens << " then " << long_tokens;
    } catch (const BenchError& e) {
      EXPECT_NE(std::string(e.what()).find("does not count what it is sent"), std::string::npos) << e.what();
    }
  }
}

TEST(InputFit, AFittedWorkloadDrawsTheWordsThatMakeTheTokensAndCountsThemAsTheServerWould) {
  WorkloadOptions o;
  o.model = "m";
  o.input = LengthDistribution::fixed(400);
  o.output = LengthDistribution::fixed(8);
  o.input_fit = TokenFit{10, 1.5};
  o.prefix_groups = 2;
  o.prefix_tokens = 150;
  const Workload w(o);
  const PreparedRequest r = w.make(3);
  const boost::json::value body = boost::json::parse(r.body);
  const boost::json::array& messages = body.at("messages").as_array();
  EXPECT_EQ(count_words(messages[0].at("content").as_string()), 100u);  // the prefix: 150 tokens
  EXPECT_EQ(count_words(messages[1].at("content").as_string()), 260u);  // 400 less the template
  EXPECT_EQ(r.input_tokens, 10 + 150 + 390);
  EXPECT_NE(describe_lengths(o).find("prompts in the server's tokens: 1.5 a word + 10 for the template"),
            std::string::npos)
      << describe_lengths(o);
  // A later turn's words make their tokens without a second template.
  o.prefix_groups = 0;
  o.turns = 2;
  const PreparedRequest second = Workload(o).make_turn(0, 1, {openai::Reply{"one two", {}}});
  const boost::json::value second_body = boost::json::parse(second.body);
  const boost::json::array& turns = second_body.at("messages").as_array();
  EXPECT_EQ(count_words(turns[2].at("content").as_string()), 267u);  // 400 / 1.5
  EXPECT_EQ(second.input_tokens, (TokenFit{10, 1.5}.tokens_for(260 + 2 + 267)));
}

TEST(InputFit, AProbeIsTheTextAloneAskingForOneWholeToken) {
  WorkloadOptions o;
  o.model = "m";
  o.extra_body = boost::json::object{{"temperature", 0}};
  for (const auto endpoint : {openai::Endpoint::chat, openai::Endpoint::completions, openai::Endpoint::responses,
                              openai::Endpoint::embeddings}) {
    o.endpoint = endpoint;
    const PreparedRequest probe = Workload(o).make_probe("a b c");
    const boost::json::object body = boost::json::parse(probe.body).as_object();
    EXPECT_EQ(probe.input_tokens, 3);
    EXPECT_EQ(body.at("temperature"), 0);
    if (endpoint == openai::Endpoint::embeddings) {
      EXPECT_EQ(body.at("input"), "a b c");
      continue;
    }
    EXPECT_EQ(body.at("stream"), false);
    EXPECT_EQ(body.at(endpoint == openai::Endpoint::responses ? "max_output_tokens" : "max_tokens"), 1);
  }
}

}  // namespace
}  // namespace infergate::bench
