#include "sim/response_format.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <string>
#include <vector>

#include "sim/text_generator.hpp"

namespace infergate::sim {
namespace {

namespace json = boost::json;

ResponseAnswer answer(bool incomplete) {
  return ResponseAnswer{"resp-sim-7", 1796000000, R"("org/model")", 42, 11, 5, incomplete, true, ""};
}

std::string text_of(const ResponseAnswer& a) {
  std::string text;
  append_output(a.seed, 0, a.output_tokens, text);
  return text;
}

TEST(ResponseFormat, AWholeResponseCarriesItsTextStatusAndUsage) {
  const json::object r = json::parse(response_json(answer(false))).as_object();
  EXPECT_EQ(r.at("id"), "resp-sim-7");
  EXPECT_EQ(r.at("object"), "response");
  EXPECT_EQ(r.at("status"), "completed");
  EXPECT_EQ(r.at("model"), "org/model");
  const json::object& message = r.at("output").as_array().at(0).as_object();
  EXPECT_EQ(message.at("id"), "msg-sim-7");
  EXPECT_EQ(message.at("content").as_array().at(0).at("text").as_string(), text_of(answer(false)));
  EXPECT_EQ(r.at("usage").at("input_tokens"), 11);
  EXPECT_EQ(r.at("usage").at("output_tokens"), 5);
  EXPECT_EQ(r.at("usage").at("total_tokens"), 16);

  const json::object cut = json::parse(response_json(answer(true))).as_object();
  EXPECT_EQ(cut.at("status"), "incomplete");
  EXPECT_EQ(cut.at("incomplete_details").at("reason"), "max_output_tokens");
}

// The events of a stream, by name, and the data of each: each "event: <type>" then its data,
// whose type is the same and whose sequence numbers count from zero.
std::vector<std::pair<std::string, json::object>> events_of(const std::string& stream) {
  std::vector<std::pair<std::string, json::object>> events;
  for (std::size_t at = 0; at < stream.size();) {
    const std::size_t end = stream.find("\n\n", at);
    EXPECT_NE(end, std::string::npos);
    const std::string event = stream.substr(at, end - at);
    at = end == std::string::npos ? stream.size() : end + 2;
    EXPECT_TRUE(event.starts_with("event: ")) << event;
    const std::size_t line = event.find('\n');
    const std::string name = event.substr(7, line - 7);
    EXPECT_TRUE(event.substr(line + 1).starts_with("data: ")) << event;
    json::object data = json::parse(event.substr(line + 7)).as_object();
    EXPECT_EQ(data.at("type").as_string(), name);
    EXPECT_EQ(data.at("sequence_number"), static_cast<std::int64_t>(events.size()));
    events.emplace_back(name, std::move(data));
  }
  return events;
}

// The whole stream of an answer of five tokens, sent two and three at a time.
std::string five_token_stream(const ResponseAnswer& a) {
  std::string stream;
  int sequence = 0;
  append_start_events(stream, a, sequence);
  append_delta_event(stream, a, sequence, 0, 2);
  append_delta_event(stream, a, sequence, 2, 3);
  append_end_events(stream, a, sequence);
  return stream;
}

TEST(ResponseFormat, AStreamIsTypedNumberedEventsWhoseDeltasMakeTheText) {
  const ResponseAnswer a = answer(false);
  const std::string stream = five_token_stream(a);

  std::vector<std::string> types;
  std::string deltas;
  json::object last;
  for (auto& [name, data] : events_of(stream)) {
    if (name == "response.output_text.delta") {
      deltas += data.at("delta").as_string();
    }
    types.push_back(name);
    last = std::move(data);
  }
  EXPECT_EQ(types, (std::vector<std::string>{
                       "response.created", "response.output_item.added", "response.content_part.added",
                       "response.output_text.delta", "response.output_text.delta", "response.output_text.done",
                       "response.content_part.done", "response.output_item.done", "response.completed"}));
  EXPECT_EQ(deltas, text_of(a));
  EXPECT_EQ(last.at("response").at("usage").at("output_tokens"), 5);
  EXPECT_EQ(last.at("response").at("output").at(0).at("content").at(0).at("text").as_string(), deltas);
}

TEST(ResponseFormat, AToolFunctionIsAFunctionCallItemAddedWithItsFirstToken) {
  const openai::ToolFunction weather{"get_weather", "city"};
  const ToolCallAnswer call{weather, "call_sim_7", 42, 5, true};
  ResponseAnswer a = answer(false);
  a.tool_call = &call;
  const std::string stream = five_token_stream(a);
  std::vector<std::string> types;
  std::string deltas;
  for (const auto& [name, data] : events_of(stream)) {
    types.push_back(name);
    if (name == "response.function_call_arguments.delta") {
      deltas += data.at("delta").as_string();
    }
    if (name == "response.output_item.added") {
      EXPECT_EQ(data.at("item").at("type"), "function_call");
      EXPECT_EQ(data.at("item").at("name"), "get_weather");
      EXPECT_EQ(data.at("item").at("call_id"), "call_sim_7");
      EXPECT_EQ(data.at("item").at("arguments"), "");
    }
    if (name == "response.function_call_arguments.done") {
      EXPECT_EQ(data.at("arguments").as_string(), deltas);
    }
  }
  EXPECT_EQ(types, (std::vector<std::string>{
                       "response.created", "response.output_item.added", "response.function_call_arguments.delta",
                       "response.function_call_arguments.delta", "response.function_call_arguments.done",
                       "response.output_item.done", "response.completed"}));
  EXPECT_EQ(json::parse(deltas).at("city").as_string(), text_of(a));

  const json::object whole = json::parse(response_json(a)).as_object();
  const json::object& item = whole.at("output").as_array().at(0).as_object();
  EXPECT_EQ(item.at("type"), "function_call");
  EXPECT_EQ(item.at("id"), "fc-sim-7");
  EXPECT_EQ(item.at("status"), "completed");
  EXPECT_EQ(item.at("arguments").as_string(), deltas);
}

}  // namespace
}  // namespace infergate::sim
