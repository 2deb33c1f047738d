#include "openai/tool_choice.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include <string>
#include <utility>

#include "openai/completion_request.hpp"

namespace infergate::openai {
namespace {

constexpr const char* kChatTools =
    R"("tools":[{"type":"function","function":{"name":"get_time"}},
                {"type":"function","function":{"name":"get_weather","parameters":{"type":"object",
                 "properties":{"city":{"type":"string"},"unit":{"type":"string"}},"required":["city"]}}}])";

std::optional<ApiError> choice_in(const std::string& members, bool responses_shape, ToolChoice& out) {
  return read_tool_choice(boost::json::parse("{" + members + "}").as_object(), responses_shape, out);
}

std::optional<ApiError> forced_in(const std::string& members, bool responses_shape, std::optional<ToolFunction>& out) {
  ToolChoice choice;
  auto error = choice_in(members, responses_shape, choice);
  EXPECT_FALSE(choice.offered) << members;
  out = std::move(choice.forced);
  return error;
}

TEST(ToolChoice, ANamedFunctionOrRequiredIsTheCallToMake) {
  std::optional<ToolFunction> call;
  ASSERT_FALSE(
      forced_in(std::string(kChatTools) + R"(,"tool_choice":{"type":"function","function":{"name":"get_weather"}})",
                false, call));
  ASSERT_TRUE(call);
  EXPECT_EQ(call->name, "get_weather");
  EXPECT_EQ(call->argument, "city");  // the first property of its parameters

  ASSERT_FALSE(forced_in(std::string(kChatTools) + R"(,"tool_choice":"required")", false, call));
  ASSERT_TRUE(call);
  EXPECT_EQ(call->name, "get_time");
  EXPECT_EQ(call->argument, "input");  // no parameters of its own

  // The Responses API names a function at the tool's top level, and may list hosted tools too.
  ASSERT_FALSE(forced_in(R"("tools":[{"type":"web_search"},{"type":"function","name":"lookup",
                           "parameters":{"properties":{"query":{}}}}],"tool_choice":"required")",
                         true, call));
  ASSERT_TRUE(call);
  EXPECT_EQ(call->name, "lookup");
  EXPECT_EQ(call->argument, "query");
  ASSERT_FALSE(forced_in(R"("tools":[{"type":"function","name":"lookup"}],
                           "tool_choice":{"type":"function","name":"lookup"})",
                         true, call));
  ASSERT_TRUE(call);
}

TEST(ToolChoice, AutoOrNoChoiceOffersTheFirstFunctionAndNoneNothing) {
  for (const std::string& members : {std::string(kChatTools), std::string(kChatTools) + R"(,"tool_choice":"auto")"}) {
    ToolChoice choice{ToolFunction{"stale", "x"}, std::nullopt};
    ASSERT_FALSE(choice_in(members, false, choice)) << members;
    EXPECT_FALSE(choice.forced) << members;
    ASSERT_TRUE(choice.offered) << members;
    EXPECT_EQ(choice.offered->name, "get_time");
  }
  const std::pair<std::string, bool> nothing_offered[] = {
      {std::string(kChatTools) + R"(,"tool_choice":"none")", false},
      {R"("tools":null,"tool_choice":null)", false},
      {R"("n":1)", false},
      {R"("tools":[{"type":"web_search"}],"tool_choice":"auto")", true},  // a hosted tool is no function
  };
  for (const auto& [members, responses_shape] : nothing_offered) {
    ToolChoice choice{ToolFunction{"stale", "x"}, ToolFunction{"stale", "x"}};
    ASSERT_FALSE(choice_in(members, responses_shape, choice)) << members;
    EXPECT_FALSE(choice.forced) << members;
    EXPECT_FALSE(choice.offered) << members;
  }
}

TEST(ToolChoice, AMistakeIsA400NamingTheField) {
  struct Case {
    std::string members;
    bool responses_shape;
    const char* param;
    const char* says;
  };
  const std::string tools = kChatTools;
  for (const Case& c : {
           Case{R"("tool_choice":"required")", false, "tool_choice", "only allowed when 'tools'"},
           Case{tools + R"(,"tool_choice":"always")", false, "tool_choice", "'always'"},
           Case{tools + R"(,"tool_choice":{"type":"function","function":{"name":"get_news"}})", false, "tool_choice",
                "'get_news' is not among 'tools'"},
           Case{tools + R"(,"tool_choice":{"type":"function"})", false, "tool_choice.function.name", "required"},
           Case{tools + R"(,"tool_choice":{"type":"web_search"})", false, "tool_choice.type", "\"function\""},
           Case{tools + R"(,"tool_choice":3)", false, "tool_choice", "a string or an object"},
           Case{R"("tools":{"type":"function"})", false, "tools", "an array"},
           Case{R"("tools":[7])", false, "tools[0]", "an object"},
           Case{R"("tools":[{"function":{"name":"f"}}])", false, "tools[0].type", "required"},
           Case{R"("tools":[{"type":"function"}])", false, "tools[0].function", "required"},
           Case{R"("tools":[{"type":"function","function":{"name":""}}])", false, "tools[0].function.name",
                "non-empty"},
           Case{R"("tools":[{"type":"function","function":{"name":"f"}}])", true, "tools[0].name", "required"},
           Case{R"("tools":[{"type":"web_search"}],"tool_choice":"required")", true, "tool_choice", "no function"},
           Case{R"("tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"function","function":{"name":"f"}})",
                true, "tool_choice.name", "required"},
       }) {
    std::optional<ToolFunction> call;
    const std::optional<ApiError> error = forced_in(c.members, c.responses_shape, call);
    ASSERT_TRUE(error) << c.members;
    EXPECT_EQ(error->status, 400) << c.members;
    EXPECT_EQ(error->param, c.param) << c.members;
    EXPECT_NE(error->message.find(c.says), std::string::npos) << error->message;
  }
}

TEST(ToolChoice, AChatRequestCarriesItsCallAndACompletionsOneNone) {
  CompletionRequest r;
  ASSERT_FALSE(parse_completion_request(std::string(R"({"model":"m","messages":[{"role":"user","content":"hi"}],)") +
                                            kChatTools + R"(,"tool_choice":"required"})",
                                        Endpoint::chat, r));
  ASSERT_TRUE(r.tool_choice.forced);
  EXPECT_EQ(r.tool_choice.forced->name, "get_time");
  const std::optional<ApiError> error = parse_completion_request(
      R"({"model":"m","messages":[{"role":"user","content":"hi"}],"tool_choice":"required"})", Endpoint::chat, r);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->param, "tool_choice");
  // The legacy completions API has no tools: they are no field of its.
  ASSERT_FALSE(parse_completion_request(R"({"model":"m","prompt":"hi","tools":7})", Endpoint::completions, r));
  EXPECT_FALSE(r.tool_choice.forced);
  EXPECT_FALSE(r.tool_choice.offered);
}

}  // namespace
}  // namespace infergate::openai
