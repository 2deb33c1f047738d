#include "doctor/endpoint.hpp"

#include <fmt/format.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/json.hpp>

#include <chrono>

#include "core/as_tuple.hpp"
#include "core/clock.hpp"
#include "core/utf8_text.hpp"
#include "http/connect.hpp"
#include "http/fetch.hpp"
#include "http/sse_parser.hpp"
#include "openai/api_base.hpp"
#include "openai/api_error.hpp"
#include "openai/completion_request.hpp"
#include "openai/embedding_reply.hpp"
#include "openai/model_list.hpp"
#include "openai/stream_chunk.hpp"

namespace infergate::doctor {

namespace net = boost::asio;
using net::awaitable;
using tcp = net::ip::tcp;

namespace {

constexpr http::OwnedHeader kOwned[] = {
    {"content-type", "is application/json, set by each check"},
    {"accept", "is application/json, set by each check"},
    {"authorization", "is set from --api-key (or $OPENAI_API_KEY)"},
};

// A reply that ends a normal answer quickly: a model that ignores ignore_eos stops after a token or two.
constexpr std::string_view kShortPrompt = "Reply with the single word OK.";
constexpr int kNaturalStopLimit = 1024;

// The request of the tool-call check: one function, named in tool_choice, so that a server that
// calls tools at all must call it (vLLM answers a named choice without an automatic tool parser).
boost::json::object tool_call_request(const std::string& model) {
  const boost::json::object city{{"type", "string"}};
  const boost::json::object function{
      {"name", "get_weather"},
      {"description", "The weather in a city"},
      {"parameters", boost::json::object{{"type", "object"},
                                         {"properties", boost::json::object{{"city", city}}},
                                         {"required", boost::json::array{"city"}}}}};
  return {{"model", model},
          {"messages", boost::json::array{boost::json::object{
                           {"role", "user"}, {"content", "What is the weather in Paris? Use the get_weather tool."}}}},
          {"max_tokens", 64},
          {"tools", boost::json::array{boost::json::object{{"type", "function"}, {"function", function}}}},
          {"tool_choice",
           boost::json::object{{"type", "function"}, {"function", boost::json::object{{"name", "get_weather"}}}}}};
}

// "get_weather({"city": "Paris"})" of the first tool call in a chat completion; nothing when it
// holds none. `finish` gets the choice's finish_reason.
std::optional<std::string> first_tool_call(std::string_view body, std::string& finish) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(body, ec);
  const auto* choices = !ec && v.is_object() ? v.get_object().if_contains("choices") : nullptr;
  if (choices == nullptr || !choices->is_array() || choices->get_array().empty() ||
      !choices->get_array()[0].is_object()) {
    return std::nullopt;
  }
  const auto& choice = choices->get_array()[0].get_object();
  if (const auto* reason = choice.if_contains("finish_reason"); reason && reason->is_string()) {
    finish = reason->get_string();
  }
  const auto* message = choice.if_contains("message");
  const auto* calls = message && message->is_object() ? message->get_object().if_contains("tool_calls") : nullptr;
  if (calls == nullptr || !calls->is_array() || calls->get_array().empty() || !calls->get_array()[0].is_object()) {
    return std::nullopt;
  }
  const auto* function = calls->get_array()[0].get_object().if_contains("function");
  if (function == nullptr || !function->is_object()) {
    return std::nullopt;
  }
  auto text = [&](std::string_view key) {
    const auto* s = function->get_object().if_contains(key);
    return s && s->is_string() ? std::string(s->get_string()) : std::string();
  };
  // A model may write long arguments, or be cut short by max_tokens: the check's line shows their start.
  constexpr std::size_t kShown = 60;
  std::string arguments = text("arguments");
  if (arguments.size() > kShown) {
    arguments = fmt::format("{}... ({} bytes)", valid_utf8(arguments, kShown), arguments.size());
  }
  return fmt::format("{}({})", text("name"), arguments);
}

double ms_since(std::int64_t start_ns) {
  return static_cast<double>(monotonic_ns() - start_ns) / 1e6;
}

class Checker {
 public:
  explicit Checker(EndpointOptions options) : o_(std::move(options)) {
    if (!o_.api_key.empty()) {
      authorization_ = "Bearer " + o_.api_key;
    }
  }

  // Each step runs only when the one before it passed. One co_await per statement: GCC 12
  // miscompiles co_await inside && and ?: expressions.
  awaitable<std::vector<Finding>> run() {
    bool passed = co_await resolve();
    if (passed) {
      passed = co_await connect();
    }
    if (passed) {
      passed = co_await handshake();
    }
    if (passed) {
      passed = co_await models();
    }
    if (passed) {
      passed = co_await one_token_stream();
    }
    if (passed) {
      co_await ignore_eos();
      co_await responses_api();
      co_await tool_calls();
      co_await embeddings();
    }
    co_return std::move(out_);
  }

 private:
  void add(Verdict verdict, std::string check, std::string detail, std::string fix = {}) {
    out_.push_back(Finding{verdict, std::move(check), std::move(detail), std::move(fix)});
  }

  // What to give in place of a base URL that has no /models under it.
  std::string wrong_path_fix() const {
    if (const auto endpoint = openai::api_path_at_end(o_.url.path)) {
      http::Url base = o_.url;
      base.path.resize(base.path.size() - endpoint->size());
      return fmt::format("that is the {} endpoint's URL; give the API's base URL: {}", endpoint->substr(1),
                         base.to_string());
    }
    if (o_.url.path.ends_with("/v1")) {
      return "the base URL is the part before /models and /chat/completions; check the server's documented path";
    }
    return fmt::format("the base URL usually ends in /v1: try {}/v1", o_.url.to_string());
  }

  std::vector<http::Header> headers() const {
    std::vector<http::Header> h{{"Accept", "application/json"}, {"Content-Type", "application/json"}};
    if (!authorization_.empty()) {
      h.push_back({"Authorization", authorization_});
    }
    http::append_header_fields(o_.headers, "infergate-doctor", h);
    return h;
  }

  std::string where() const { return o_.url.host + ":" + std::to_string(o_.url.port); }

  awaitable<bool> resolve() {
    tcp::resolver resolver(co_await net::this_coro::executor);
    auto [ec, results] = co_await resolver.async_resolve(o_.url.host, std::to_string(o_.url.port), as_tuple);
    if (ec) {
      add(Verdict::fail, "name resolution", fmt::format("cannot resolve '{}': {}", o_.url.host, ec.message()),
          "check the host name's spelling and the machine's DNS (getent hosts NAME); inside a container, use the "
          "service name, or host.docker.internal for the host");
      co_return false;
    }
    endpoints_ = results;
    add(Verdict::ok, "name resolution",
        fmt::format("{} resolves to {}", o_.url.host, results.begin()->endpoint().address().to_string()));
    co_return true;
  }

  awaitable<bool> connect() {
    boost::beast::tcp_stream stream(co_await net::this_coro::executor);
    stream.expires_after(o_.timeout);
    const std::int64_t start = monotonic_ns();
    const boost::system::error_code ec = co_await http::connect_each(stream, endpoints_);
    if (ec == net::error::connection_refused) {
      add(Verdict::fail, "TCP connect", fmt::format("{} refused the connection: nothing listens there", where()),
          "start the server, or fix the port (vLLM 8000, llama.cpp server 8080, Ollama 11434, SGLang 30000); a "
          "server in a container must publish its port and listen on 0.0.0.0, not 127.0.0.1");
      co_return false;
    }
    if (ec) {
      add(Verdict::fail, "TCP connect", fmt::format("{}: {}", where(), ec.message()),
          ec == boost::beast::error::timeout
              ? "no answer at all: a firewall or security group drops the packets, or the host is down"
              : "check the address and the network between here and there");
      co_return false;
    }
    add(Verdict::ok, "TCP connect", fmt::format("{} accepted in {:.1f} ms", where(), ms_since(start)));
    co_return true;
  }

  awaitable<bool> handshake() {
    if (!o_.url.tls) {
      co_return true;
    }
    auto opened = co_await http::Connection::open(co_await net::this_coro::executor, o_.url, o_.timeout, o_.tls);
    if (!opened) {
      add(Verdict::fail, "TLS", fmt::format("the handshake with {} failed: {}", where(), opened.error().message()),
          "if the certificate is self-signed or from a private CA, add that CA to the system store "
          "(/usr/local/share/ca-certificates, then update-ca-certificates); --insecure skips verification, for "
          "test servers only. Is the port really serving HTTPS (not plain http://)?");
      co_return false;
    }
    (*opened)->close();
    add(o_.tls.verify_peer ? Verdict::ok : Verdict::warn, "TLS",
        o_.tls.verify_peer ? fmt::format("certificate verified for {}", o_.url.host)
                           : "handshake done WITHOUT verifying the certificate (--insecure)",
        o_.tls.verify_peer ? "" : "anyone on the path can read the traffic and the API key: trust the CA instead");
    co_return true;
  }

  // Advice for a status that is not 200 on an API route; true when the status was 429.
  bool advise_status(const std::string& check, int status, const http::ResponseHead& head, std::string_view body) {
    const std::string message = openai::error_message_from_body(body);
    if (status == 401 || status == 403) {
      add(Verdict::fail, check,
          o_.api_key.empty() ? fmt::format("{}: the server wants an API key: {}", status, message)
                             : fmt::format("{}: the server refused the key: {}", status, message),
          o_.api_key.empty() ? "pass --api-key or set OPENAI_API_KEY (for Groq, a key from console.groq.com)"
                             : "check the key belongs to this provider and project, has not been revoked, and has "
                               "no stray whitespace or quotes");
      return false;
    }
    if (status == 429) {
      const std::string_view retry = head.header("retry-after");
      add(Verdict::fail, check,
          fmt::format("429 rate limited{}: {}", retry.empty() ? "" : fmt::format(" (Retry-After: {} s)", retry),
                      message),
          "back off: wait at least Retry-After before the next request, retry with exponential backoff and jitter, "
          "and send fewer requests at once; infergate serve honours Retry-After and the x-ratelimit-reset headers "
          "for you");
      return true;
    }
    add(Verdict::fail, check, fmt::format("{}: {}", status, message),
        status >= 500 ? "the server failed: its own log says why (out of memory, model still loading, crashed worker)"
                      : "the server rejected the request as sent");
    return false;
  }

  awaitable<bool> models() {
    const std::string target = o_.url.path + "/models";
    auto response = co_await http::fetch(co_await net::this_coro::executor, o_.url, "GET", target, headers(), "",
                                         o_.timeout, o_.tls);
    const std::string check = "GET " + target;
    if (!response) {
      add(Verdict::fail, check, response.error().ec.message(), "the server closed or timed out: is it overloaded?");
      co_return false;
    }
    const int status = response->head.status;
    if (status == 404) {
      add(Verdict::fail, check, fmt::format("404: there is no {} here", target), wrong_path_fix());
      co_return false;
    }
    if (status != 200) {
      advise_status(check, status, response->head, response->body);
      co_return false;
    }
    auto ids = openai::parse_model_list(response->body);
    if (!ids) {
      add(Verdict::fail, check, "200, but the body is not an OpenAI model list",
          "is this an OpenAI-compatible API? (Ollama's own API is under /api; its OpenAI one under /v1)");
      co_return false;
    }
    if (ids->empty()) {
      add(Verdict::fail, check, "the server lists no model", "load a model into the server first");
      co_return false;
    }
    add(Verdict::ok, check, fmt::format("{} model(s): {}", ids->size(), fmt::join(*ids, ", ")));
    if (o_.model.empty()) {
      o_.model = ids->front();
    } else if (std::find(ids->begin(), ids->end(), o_.model) == ids->end()) {
      add(Verdict::fail, "model",
          fmt::format("'{}' is not served here; the models that exist: {}", o_.model, fmt::join(*ids, ", ")),
          "use one of those names with --model (names are case-sensitive; Ollama's carry a :tag)");
      co_return false;
    }
    co_return true;
  }

  std::string chat_body(int max_tokens, bool stream, bool ignore_eos) const {
    boost::json::object body{
        {"model", o_.model},
        {"messages", boost::json::array{boost::json::object{{"role", "user"}, {"content", kShortPrompt}}}},
        {"max_tokens", max_tokens}};
    if (stream) {
      body["stream"] = true;
      body["stream_options"] = boost::json::object{{"include_usage", true}};
    }
    if (ignore_eos) {
      body["ignore_eos"] = true;
    }
    return boost::json::serialize(body);
  }

  void report_rate_limits(const http::ResponseHead& head) {
    std::vector<std::string> parts;
    for (std::string_view kind : {"requests", "tokens"}) {
      const auto limit = head.header(fmt::format("x-ratelimit-limit-{}", kind));
      const auto remaining = head.header(fmt::format("x-ratelimit-remaining-{}", kind));
      const auto reset = head.header(fmt::format("x-ratelimit-reset-{}", kind));
      if (!limit.empty() || !remaining.empty()) {
        parts.push_back(fmt::format("{} {} of {} left{}", kind, remaining.empty() ? "?" : remaining,
                                    limit.empty() ? "?" : limit,
                                    reset.empty() ? "" : fmt::format(", reset in {}", reset)));
      }
    }
    if (parts.empty()) {
      add(Verdict::info, "rate limits", "the server sends no x-ratelimit-* headers");
    } else {
      add(Verdict::ok, "rate limits", fmt::format("{}", fmt::join(parts, "; ")));
    }
  }

  awaitable<bool> one_token_stream() {
    const std::string check = "one-token stream";
    const std::string target = endpoint_target(openai::Endpoint::chat);
    const std::int64_t start = monotonic_ns();
    auto opened = co_await http::Connection::open(co_await net::this_coro::executor, o_.url, o_.timeout, o_.tls);
    if (!opened) {
      add(Verdict::fail, check, opened.error().message());
      co_return false;
    }
    http::Connection& conn = **opened;
    conn.set_io_timeout(o_.timeout);
    const std::string body = chat_body(1, true, false);
    const std::string_view pieces[] = {body};
    const auto ec = co_await conn.request("POST", target, headers(), pieces);
    if (ec && !conn.request_sent()) {
      add(Verdict::fail, check, "sending the request failed: " + ec.message());
      co_return false;
    }
    if (ec) {
      add(Verdict::fail, check, "no response: " + ec.message(),
          ec == boost::beast::error::timeout
              ? fmt::format("nothing in {} ms: the server is stuck or queueing (check its load)", o_.timeout.count())
              : "the server closed the connection: its log says why");
      co_return false;
    }
    const http::ResponseHead& head = conn.head();
    if (head.status != 200) {
      const std::string error_body = co_await http::read_bounded_body(conn);
      advise_status(check, head.status, head, error_body);
      co_return false;
    }
    report_rate_limits(head);
    if (!head.header("content-type").starts_with("text/event-stream")) {
      add(Verdict::warn, check, fmt::format("the answer is {}, not text/event-stream", head.header("content-type")),
          "the server does not stream: TTFT will equal the whole response time");
    }
    http::SseParser parser;
    std::optional<double> ttft_ms;
    std::optional<openai::Usage> usage;
    std::optional<std::string> problem;
    bool done = false;
    auto on_event = [&](const http::SseEvent& event) {
      if (event.data == "[DONE]") {
        done = true;
        return;
      }
      openai::ChunkView chunk;
      if (auto bad = openai::parse_stream_chunk(event.data, chunk)) {
        problem = problem.value_or(fmt::format("an event is not JSON ({}): {}", *bad, valid_utf8(event.data, 80)));
        return;
      }
      if (chunk.error) {
        problem = problem.value_or("the stream carried an error: " + *chunk.error);
      }
      if (chunk.text_bytes > 0 && !ttft_ms) {
        ttft_ms = ms_since(start);
      }
      if (chunk.usage) {
        usage = chunk.usage;
      }
    };
    for (;;) {
      auto piece = co_await conn.read_body_some();
      if (!piece) {
        add(Verdict::fail, check, "the stream broke: " + piece.error().message(),
            piece.error() == boost::beast::error::timeout
                ? fmt::format("no event for {} ms: the server stalled mid-stream", o_.timeout.count())
                : "the connection was cut mid-stream (a proxy or load balancer in the way, or the server died)");
        co_return false;
      }
      if (piece->empty()) {
        break;
      }
      parser.feed(*piece, on_event);
      if (parser.unfinished_bytes() > http::kMaxSseEventBytes) {
        add(Verdict::fail, check, fmt::format("an event passed {} bytes without its end", http::kMaxSseEventBytes),
            "the body is not an event stream, or the server lost its framing (events end with a blank line)");
        co_return false;
      }
    }
    parser.finish(on_event);
    if (problem) {
      add(Verdict::fail, check, *problem,
          "clients will fail on this stream: the server or a proxy between (buffering, rewriting) mangles it");
      co_return false;
    }
    if (!ttft_ms) {
      add(Verdict::fail, check, "the stream ended without any generated text", "read the server's log");
      co_return false;
    }
    add(Verdict::ok, check,
        fmt::format("first token after {:.1f} ms (connect included){}", *ttft_ms,
                    done ? "" : "; no [DONE] at the end"));
    if (usage) {
      add(Verdict::ok, "usage",
          fmt::format("reported in the stream: {} prompt, {} completion tokens", usage->prompt_tokens,
                      usage->completion_tokens));
    } else {
      add(Verdict::warn, "usage", "the stream reports no usage, though include_usage was asked for",
          "token counts must be estimated from the text (infergate bench does so and says so); upgrade the server "
          "if it predates stream_options");
    }
    co_return true;
  }

  // The natural length of a short answer, then the same request with ignore_eos and a longer
  // max_tokens: a server that honours it fills max_tokens exactly.
  awaitable<void> ignore_eos() {
    const std::string check = "ignore_eos";
    auto natural = co_await complete(chat_body(kNaturalStopLimit, false, false));
    if (!natural.ok) {
      add(Verdict::warn, check, "could not tell: " + natural.problem);
      co_return;
    }
    if (natural.finish_reason == "length") {
      add(Verdict::info, check,
          fmt::format("could not tell: the model did not stop by itself within {} tokens", kNaturalStopLimit));
      co_return;
    }
    const std::int64_t asked = natural.completion_tokens + 8;
    auto forced = co_await complete(chat_body(static_cast<int>(asked), false, true));
    if (forced.status == 400) {
      add(Verdict::warn, check, "the server refuses the ignore_eos field: " + forced.problem,
          "fixed output lengths cannot be forced here: run bench with --no-ignore-eos and compare TPOT, not E2E");
      co_return;
    }
    if (!forced.ok) {
      add(Verdict::warn, check, "could not tell: " + forced.problem);
      co_return;
    }
    if (forced.completion_tokens == asked) {
      add(Verdict::ok, check,
          fmt::format("honoured: {} tokens where the model stops at {} by itself", asked, natural.completion_tokens));
    } else {
      add(Verdict::warn, check,
          fmt::format("ignored: asked for {} tokens, got {} (the model's own stop is at {})", asked,
                      forced.completion_tokens, natural.completion_tokens),
          "benchmarks cannot force output lengths on this server: compare TPOT rather than E2E, or use one that "
          "honours ignore_eos (vLLM, SGLang)");
    }
  }

  // Whether the server also serves the Responses API, which `bench --endpoint responses` measures.
  // Never a failure: many servers serve Chat Completions alone.
  awaitable<void> responses_api() {
    const std::string check = "Responses API";
    const boost::json::object body{{"model", o_.model}, {"input", kShortPrompt}, {"max_output_tokens", 16}};
    auto answer = co_await complete(boost::json::serialize(body), openai::Endpoint::responses);
    if (answer.ok) {
      add(Verdict::ok, check,
          fmt::format("served: POST {}/responses answered {} tokens; bench --endpoint responses measures it",
                      o_.url.path, answer.completion_tokens));
    } else if (answer.status == 404 || answer.status == 405) {
      add(Verdict::info, check,
          fmt::format("not served ({} for POST {}/responses): measure Chat Completions", answer.status, o_.url.path));
    } else {
      add(Verdict::warn, check, "could not tell: " + answer.problem);
    }
  }

  // Whether the model calls tools, which an agent's turns need (bench measures them with the same
  // tools in --extra-body). Never a failure: many servers and models do not.
  awaitable<void> tool_calls() {
    const std::string check = "tool calls";
    auto response = co_await post(openai::Endpoint::chat, boost::json::serialize(tool_call_request(o_.model)));
    if (!response) {
      add(Verdict::warn, check, "could not tell: " + response.error().ec.message());
      co_return;
    }
    const int status = response->head.status;
    if (status == 400 || status == 422) {
      add(Verdict::info, check,
          fmt::format("not taken ({}: {})", status, openai::error_message_from_body(response->body)),
          "vLLM calls tools with --enable-auto-tool-choice and the model's --tool-call-parser");
      co_return;
    }
    if (status != 200) {
      add(Verdict::warn, check,
          fmt::format("could not tell: {}: {}", status, openai::error_message_from_body(response->body)));
      co_return;
    }
    std::string finish;
    if (const auto call = first_tool_call(response->body, finish)) {
      add(Verdict::ok, check,
          fmt::format("served: the model called {}; bench measures such turns given the same tools (--extra-body)",
                      *call));
    } else {
      add(Verdict::info, check,
          fmt::format("the answer held no tool call (finish_reason {}): this server or model ignores 'tools'",
                      finish.empty() ? "none" : finish));
    }
  }

  // Whether the model also embeds, which `bench --endpoint embeddings` measures. Never a failure:
  // a generating model usually does not (vLLM answers 400, others 404).
  awaitable<void> embeddings() {
    const std::string check = "embeddings";
    const boost::json::object body{{"model", o_.model}, {"input", kShortPrompt}, {"encoding_format", "base64"}};
    auto response = co_await post(openai::Endpoint::embeddings, boost::json::serialize(body));
    if (!response) {
      add(Verdict::warn, check, "could not tell: " + response.error().ec.message());
      co_return;
    }
    const int status = response->head.status;
    if (status == 400 || status == 404 || status == 405) {
      add(Verdict::info, check,
          fmt::format("not served for '{}' ({} for POST {}: {})", o_.model, status,
                      endpoint_target(openai::Endpoint::embeddings), openai::error_message_from_body(response->body)));
      co_return;
    }
    openai::EmbeddingReply reply;
    if (status != 200) {
      add(Verdict::warn, check,
          fmt::format("could not tell: {}: {}", status, openai::error_message_from_body(response->body)));
    } else if (auto bad = openai::parse_embedding_reply(response->body, reply)) {
      add(Verdict::warn, check, "200, but the response body is " + *bad);
    } else if (reply.vectors == 0) {
      add(Verdict::warn, check, "200, but the answer holds no embedding");
    } else {
      const std::string usage =
          reply.usage ? fmt::format("{} prompt tokens", reply.usage->prompt_tokens) : "no usage reported";
      add(Verdict::ok, check,
          fmt::format("served: {}-dimensional vectors ({}); bench --endpoint embeddings measures it", reply.dimensions,
                      usage));
    }
  }

  awaitable<boost::system::result<http::FetchedResponse, http::FetchError>> post(openai::Endpoint endpoint,
                                                                                 std::string body) {
    co_return co_await http::fetch(co_await net::this_coro::executor, o_.url, "POST", endpoint_target(endpoint),
                                   headers(), std::move(body), o_.timeout, o_.tls);
  }

  [[nodiscard]] std::string endpoint_target(openai::Endpoint endpoint) const {
    return o_.url.path + std::string(openai::endpoint_path(endpoint));
  }

  struct Completion {
    bool ok = false;
    int status = 0;
    std::int64_t completion_tokens = 0;
    std::string finish_reason;
    std::string problem;
  };

  awaitable<Completion> complete(std::string body, openai::Endpoint endpoint = openai::Endpoint::chat) {
    Completion c;
    auto response = co_await post(endpoint, std::move(body));
    if (!response) {
      c.problem = response.error().ec.message();
      co_return c;
    }
    c.status = response->head.status;
    if (c.status != 200) {
      c.problem = fmt::format("{}: {}", c.status, openai::error_message_from_body(response->body));
      co_return c;
    }
    openai::ChunkView view;
    const auto parse =
        endpoint == openai::Endpoint::responses ? openai::parse_response_object : openai::parse_completion_response;
    if (auto bad = parse(response->body, view, nullptr)) {
      c.problem = "the answer is not JSON: " + *bad;
      co_return c;
    }
    if (!view.usage) {
      c.problem = "the answer reports no usage";
      co_return c;
    }
    c.ok = true;
    c.completion_tokens = view.usage->completion_tokens;
    c.finish_reason = view.finish_reason.value_or("");
    co_return c;
  }

  EndpointOptions o_;
  std::string authorization_;
  tcp::resolver::results_type endpoints_;
  std::vector<Finding> out_;
};

}  // namespace

awaitable<std::vector<Finding>> check_endpoint(EndpointOptions options) {
  Checker checker(std::move(options));
  co_return co_await checker.run();
}

http::HeaderField parse_header_option(std::string_view text) {
  return http::parse_header_option(text, kOwned);
}

}  // namespace infergate::doctor
