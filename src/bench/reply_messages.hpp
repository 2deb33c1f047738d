#pragma once
// How a conversation's earlier answers go back to the server in its next turn, as an agent's loop
// sends them: an answer's text as the assistant's message, its tool calls as the assistant's
// calls, and the next turn's words as the calls' results (a "tool" message each in Chat
// Completions; function_call and function_call_output items in the Responses API).
#include <boost/json/array.hpp>

#include <string>

#include "openai/stream_chunk.hpp"

namespace infergate::bench {

// Appends turn `turn`'s answer; returns the words it adds to the prompt (its text, and each
// call's name and arguments, which a model reads back as prompt tokens).
int append_reply(boost::json::array& messages, const openai::Reply& reply, bool responses, int turn);

// Appends the results of turn `turn`'s tool calls: the first call's is `text` (the words the next
// turn brings), each other's one word. Returns the words added. A call the server gave no id is
// named by its turn and place, in the answer and in its result alike.
int append_tool_results(boost::json::array& messages, const openai::Reply& reply, std::string text, bool responses,
                        int turn);

}  // namespace infergate::bench
