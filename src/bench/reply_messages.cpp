#include "bench/reply_messages.hpp"

#include <fmt/format.h>
#include <boost/json/object.hpp>

#include <utility>

#include "core/text_tokens.hpp"

namespace infergate::bench {

namespace json = boost::json;

namespace {

int words_in(std::string_view text) {
  return static_cast<int>(count_words(text));
}

std::string call_id(const openai::ReplyToolCall& call, int turn, std::size_t place) {
  return call.id.empty() ? fmt::format("call_{}_{}", turn, place) : call.id;
}

}  // namespace

int append_reply(json::array& messages, const openai::Reply& reply, bool responses, int turn) {
  int words = words_in(reply.text);
  if (reply.tool_calls.empty()) {
    messages.push_back(json::object{{"role", "assistant"}, {"content", reply.text}});
    return words;
  }
  if (responses && !reply.text.empty()) {
    messages.push_back(json::object{{"role", "assistant"}, {"content", reply.text}});
  }
  json::array calls;
  for (std::size_t i = 0; i < reply.tool_calls.size(); ++i) {
    const openai::ReplyToolCall& call = reply.tool_calls[i];
    words += words_in(call.name) + words_in(call.arguments);
    if (responses) {
      messages.push_back(json::object{{"type", "function_call"},
                                      {"call_id", call_id(call, turn, i)},
                                      {"name", call.name},
                                      {"arguments", call.arguments}});
    } else {
      calls.push_back(json::object{{"id", call_id(call, turn, i)},
                                   {"type", "function"},
                                   {"function", json::object{{"name", call.name}, {"arguments", call.arguments}}}});
    }
  }
  if (!responses) {
    json::value content = reply.text.empty() ? json::value(nullptr) : json::value(reply.text);
    messages.push_back(json::object{{"role", "assistant"}, {"content", std::move(content)}, {"tool_calls", calls}});
  }
  return words;
}

int append_tool_results(json::array& messages, const openai::Reply& reply, std::string text, bool responses, int turn) {
  int words = 0;
  for (std::size_t i = 0; i < reply.tool_calls.size(); ++i) {
    std::string result = i == 0 ? std::exchange(text, {}) : std::string("done");
    words += words_in(result);
    const std::string id = call_id(reply.tool_calls[i], turn, i);
    if (responses) {
      messages.push_back(
          json::object{{"type", "function_call_output"}, {"call_id", id}, {"output", std::move(result)}});
    } else {
      messages.push_back(json::object{{"role", "tool"}, {"tool_call_id", id}, {"content", std::move(result)}});
    }
  }
  return words;
}

}  // namespace infergate::bench
