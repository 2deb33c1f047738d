#include "openai/tool_choice.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include <string>

#include "openai/completion_request.hpp"

namespace infergate::openai {
namespace {

constexpr const char* kChatTools =
    R"("tools":[{"type":"function","function":{"name":"get_time"}},
                {"type":"function","function":{"name":"get_weather","parameters":{"type":"object",
                 "properties":{"city":{"type":"string"},"unit":{"type":"string"}},"required":["city"]}}}])";

std::optional<ApiError> forced_in(const std::string& members, bool responses_shape,
                                  std::optional<ForcedToolCall>& out) {
  return read_forced_tool_call(boost::json::parse("{" + members + "}").as_object(), responses_shape, out);
}

TEST(ToolChoice, ANamedFunctionOrRequiredIsTheCallToMake) {
  std::optional<ForcedToolCall> call;
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

TEST(ToolChoice, AutoNoneOrNoChoiceMakesNoCall) {
  std::optional<ForcedToolCall> call{ForcedToolCall{"stale", "x"}};
  for (const std::string members : {std::string(kChatTools), std::string(kChatTools) + R"(,"tool_choice":"auto")",
                                    std::string(kChatTools) + R"(,"tool_choice":"none")",
                                    std::string(R"("tools":null,"tool_choice":null)"), std::string(R"("n":1)")}) {
    ASSERT_FALSE(forced_in(members, false, call)) << members;
    EXPECT_FALSE(call) << members;
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
    std::optional<ForcedToolCall> call;
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
  ASSERT_TRUE(r.tool_call);
  EXPECT_EQ(r.tool_call->name, "get_time");
  const std::optional<ApiError> error = parse_completion_request(
      R"({"model":"m","messages":[{"role":"user","content":"hi"}],"tool_choice":"required"})", Endpoint::chat, r);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->param, "tool_choice");
  // The legacy completions API has no tools: they are no field of its.
  ASSERT_FALSE(parse_completion_request(R"({"model":"m","prompt":"hi","tools":7})", Endpoint::completions, r));
  EXPECT_FALSE(r.tool_call);
}

}  // namespace
}  // namespace infergate::openai
