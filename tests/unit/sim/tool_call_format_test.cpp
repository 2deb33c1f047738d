#include "sim/tool_call_format.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <string>

#include "core/random.hpp"
#include "sim/text_generator.hpp"

namespace infergate::sim {
namespace {

namespace json = boost::json;

const openai::ToolFunction kWeather{"get_weather", "city"};

std::string words_of(std::uint64_t seed, int count) {
  std::string text;
  append_output(seed, 0, count, text);
  return text;
}

// A delta member, as a JSON object of its own.
json::object delta_of(const ToolCallAnswer& answer, int first, int count) {
  std::string member = "{";
  append_tool_call_delta(member, answer, first, count);
  return json::parse(member + "}").as_object();
}

TEST(ToolCallFormat, StreamedDeltasNameTheCallOnceAndSpellItsArguments) {
  const ToolCallAnswer answer{kWeather, "call_sim_3", 42, 5, true};
  std::string arguments;
  for (const auto& [first, count] : {std::pair{0, 2}, std::pair{2, 1}, std::pair{3, 2}}) {
    const json::object delta = delta_of(answer, first, count);
    const json::object& call = delta.at("tool_calls").as_array().at(0).as_object();
    EXPECT_EQ(call.at("index"), 0);
    EXPECT_EQ(call.contains("id"), first == 0);
    EXPECT_EQ(call.at("function").as_object().contains("name"), first == 0);
    if (first == 0) {
      EXPECT_EQ(call.at("id"), "call_sim_3");
      EXPECT_EQ(call.at("type"), "function");
      EXPECT_EQ(call.at("function").at("name"), "get_weather");
    }
    arguments += call.at("function").at("arguments").as_string();
  }
  const json::object parsed = json::parse(arguments).as_object();
  EXPECT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed.at("city").as_string(), words_of(42, 5));
}

TEST(ToolCallFormat, AWholeMessageHoldsTheCallWithAllItsArguments) {
  const ToolCallAnswer answer{kWeather, "call_sim_4", 7, 3, true};
  std::string member = "{";
  append_tool_calls(member, answer);
  const json::object message = json::parse(member + "}").as_object();
  const json::object& call = message.at("tool_calls").as_array().at(0).as_object();
  EXPECT_EQ(call.at("id"), "call_sim_4");
  EXPECT_EQ(call.at("function").at("name"), "get_weather");
  EXPECT_EQ(json::parse(call.at("function").at("arguments").as_string()).at("city").as_string(), words_of(7, 3));
}

TEST(ToolCallFormat, ArgumentsCutAtTheLengthStayOpenAndNamesAreEscaped) {
  std::string cut;
  append_arguments(cut, ToolCallAnswer{kWeather, "c", 7, 3, false}, 0, 3);
  EXPECT_EQ(cut, R"({\"city\":\")" + words_of(7, 3));
  const openai::ToolFunction odd{"say \"hi\"", "a\"b"};
  std::string member = "{";
  append_tool_calls(member, ToolCallAnswer{odd, "c", 7, 1, true});
  const json::object message = json::parse(member + "}").as_object();
  const json::value& function = message.at("tool_calls").at(0).at("function");
  EXPECT_EQ(function.at("name"), "say \"hi\"");
  EXPECT_EQ(json::parse(function.at("arguments").as_string()).at("a\"b").as_string(), words_of(7, 1));
}

TEST(ToolCallFormat, AChosenCallTakesItsShareOfPromptsAndOnePromptIsAlwaysAnsweredAlike) {
  for (const double share : {0.0, 0.25, 0.5, 1.0}) {
    int calls = 0;
    constexpr int kPrompts = 20'000;
    for (int i = 0; i < kPrompts; ++i) {
      calls += chooses_tool_call(mix64(static_cast<std::uint64_t>(i)), share) ? 1 : 0;
    }
    EXPECT_NEAR(static_cast<double>(calls) / kPrompts, share, 0.015) << share;
  }
  // Consecutive hashes, as from prompts that differ in one word, are drawn independently too.
  int calls = 0;
  for (std::uint64_t hash = 1000; hash < 3000; ++hash) {
    const bool chosen = chooses_tool_call(hash, 0.5);
    EXPECT_EQ(chosen, chooses_tool_call(hash, 0.5));
    calls += chosen ? 1 : 0;
  }
  EXPECT_NEAR(calls, 1000, 80);
}

}  // namespace
}  // namespace infergate::sim
