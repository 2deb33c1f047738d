#include "bench/input_fit.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "bench/model_mix.hpp"
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
  o.input_fits = {TokenFit{10, 1.5}};
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

// Each model of a mix is drawn in its own server's count: its prompt and shared prefix words,
// its template, and the tokens its requests are said to ask for.
TEST(InputFit, AMixsModelsAreEachDrawnInTheirOwnCount) {
  WorkloadOptions o;
  o.mix = parse_model_mix("narrow=1,wide=1");
  o.model = "narrow";
  o.input = LengthDistribution::fixed(400);
  o.output = LengthDistribution::fixed(8);
  o.prefix_groups = 2;
  o.prefix_tokens = 120;
  o.input_fits = {TokenFit{10, 1.5}, TokenFit{30, 2.0}};
  const Workload w(o);
  bool seen[2] = {false, false};
  for (std::uint64_t c = 0; c < 16; ++c) {
    const PreparedRequest r = w.make(c);
    const boost::json::value body = boost::json::parse(r.body);
    const boost::json::array& messages = body.at("messages").as_array();
    seen[r.model] = true;
    if (r.model == 0) {
      EXPECT_EQ(body.at("model"), "narrow");
      EXPECT_EQ(count_words(messages[0].at("content").as_string()), 80u);   // 120 / 1.5
      EXPECT_EQ(count_words(messages[1].at("content").as_string()), 260u);  // (400 - 10) / 1.5
      EXPECT_EQ(r.input_tokens, 10 + 120 + 390);
    } else {
      EXPECT_EQ(body.at("model"), "wide");
      EXPECT_EQ(count_words(messages[0].at("content").as_string()), 60u);   // 120 / 2
      EXPECT_EQ(count_words(messages[1].at("content").as_string()), 185u);  // (400 - 30) / 2
      EXPECT_EQ(r.input_tokens, 30 + 120 + 370);
    }
  }
  EXPECT_TRUE(seen[0] && seen[1]);
  EXPECT_NE(describe_lengths(o).find("(prompts in each model's tokens: narrow 1.5 a word + 10 for the template; "
                                     "wide 2 a word + 30 for the template)"),
            std::string::npos)
      << describe_lengths(o);
  const boost::json::object json = input_fit_json(o);
  EXPECT_EQ(json.at("by_model").at("wide").at("template_tokens").to_number<double>(), 30);
  EXPECT_EQ(json.at("by_model").at("narrow").at("tokens_per_word").to_number<double>(), 1.5);
  o.input_fits.pop_back();
  EXPECT_THROW(Workload{o}, std::invalid_argument);
  o.mix.clear();
  EXPECT_EQ(input_fit_json(o).at("template_tokens").to_number<double>(), 10);
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
