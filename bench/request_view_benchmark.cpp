// Reading a chat request's routing fields and prompt size in one pass of Boost.JSON's validating
// parser (what the gateway does per request) against parsing it into a DOM, which the gateway did
// before: the DOM parse alone, into the same kind of stack buffer, a lower bound of that cost.
// Both run in alternating rounds on the same bodies; the ratio is printed.
#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "openai/request_view.hpp"

namespace {

namespace json = boost::json;

std::string chat_body(int messages, int words) {
  std::string body = R"({"model":"llama-3.1-8b-instant","messages":[)";
  for (int m = 0; m < messages; ++m) {
    body += m == 0 ? "" : ",";
    body += R"({"role":")";
    body += m % 2 == 0 ? "user" : "assistant";
    body += R"(","content":")";
    for (int w = 0; w < words; ++w) {
      body += "hello ";
    }
    body += "\"}";
  }
  body += R"(],"max_tokens":64,"temperature":0.7,"stream":true})";
  return body;
}

template <class F>
double ns_per_call(const std::string& body, int calls, F f) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) {
    f(body);
  }
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / calls;
}

}  // namespace

int main() {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"one 600-byte message", chat_body(1, 100)},
      {"20 messages, 24 kB", chat_body(20, 200)},
  };
  long sink = 0;
  auto one_pass = [&](const std::string& body) {
    infergate::openai::RequestView view;
    sink += infergate::openai::parse_request_view(body, view) ? 0 : view.prompt_tokens_estimate;
  };
  auto dom = [&](const std::string& body) {
    unsigned char scratch[8192];
    json::monotonic_resource resource(scratch, sizeof(scratch));
    boost::system::error_code ec;
    const json::value v = json::parse(body, ec, &resource);
    sink += v.is_object() && v.get_object().contains("model") ? 1 : 0;
  };
  std::printf("%-22s %14s %14s %8s\n", "body", "one pass ns", "DOM parse ns", "ratio");
  for (const auto& [name, body] : cases) {
    const int calls = static_cast<int>(std::max<std::size_t>(200, 20'000'000 / body.size()));
    std::vector<double> ours;
    std::vector<double> theirs;
    for (int round = 0; round < 7; ++round) {
      ours.push_back(ns_per_call(body, calls, one_pass));
      theirs.push_back(ns_per_call(body, calls, dom));
    }
    std::sort(ours.begin(), ours.end());
    std::sort(theirs.begin(), theirs.end());
    std::printf("%-22s %14.0f %14.0f %8.2f\n", name, ours[3], theirs[3], ours[3] / theirs[3]);
  }
  return sink == 42 ? 1 : 0;
}
