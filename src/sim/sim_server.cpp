#include "sim/sim_server.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <stdexcept>
#include <unordered_map>

#include "core/clock.hpp"
#include "openai/api_error.hpp"
#include "openai/completion_request.hpp"
#include "openai/embedding_request.hpp"
#include "openai/model_list.hpp"
#include "sim/embedding_response.hpp"
#include "sim/response_format.hpp"
#include "sim/sim_metrics.hpp"
#include "sim/text_generator.hpp"
#include "sim/tool_call_format.hpp"

namespace infergate::sim {

namespace net = boost::asio;
using boost::system::error_code;
using net::awaitable;
constexpr auto as_tuple = net::as_tuple(net::use_awaitable);

static_assert(kBlockTokens == openai::kPrefixBlockWords, "one word is one token: prompt blocks are KV blocks");

namespace {

// What a session waits on: tokens the engine has produced for its sequence and not yet written.
struct Sink {
  explicit Sink(const net::any_io_executor& ex) : wake(ex, net::steady_timer::time_point::max()) {}
  int produced = 0;
  bool finished = false;
  bool client_gone = false;
  std::int64_t first_token_ns = 0;  // when the engine produced them (the non-streamed trace)
  std::int64_t last_token_ns = 0;
  net::steady_timer wake;
};

// One served model: its performance model, its engine and the coroutine that steps it.
struct ModelEndpoint {
  ModelEndpoint(net::io_context& io, std::string served_name, const Profile& profile, const SimOptions& options)
      : name(std::move(served_name)),
        json_name(boost::json::serialize(boost::json::string(name))),
        perf(profile),
        engine(perf, options.engine),
        step_timer(io),
        idle(io, net::steady_timer::time_point::max()) {}

  awaitable<void> drive() {
    for (;;) {
      if (!engine.has_work()) {
        idle.expires_at(net::steady_timer::time_point::max());
        co_await idle.async_wait(as_tuple);
        continue;
      }
      step_timer.expires_at(to_time_point(engine.start_step(monotonic_ns())));
      co_await step_timer.async_wait(as_tuple);
      for (const Emission& e : engine.finish_step()) {
        auto it = sinks.find(e.id);
        if (it == sinks.end()) {
          continue;
        }
        Sink& sink = *it->second;
        sink.last_token_ns = monotonic_ns();
        if (sink.produced == 0) {
          sink.first_token_ns = sink.last_token_ns;
        }
        sink.produced += e.tokens;
        sink.finished = e.finished;
        sink.wake.cancel();
      }
    }
  }

  std::string name;
  std::string json_name;  // the name as a JSON string literal, quotes included
  PerfModel perf;
  Engine engine;
  net::steady_timer step_timer;
  net::steady_timer idle;
  std::unordered_map<SequenceId, Sink*> sinks;
};

// A sequence's registration with its engine, undone on every way out of the handler: a client
// that leaves cancels its sequence and frees its slot.
class SequenceGuard {
 public:
  SequenceGuard(ModelEndpoint& endpoint, SequenceId id, Sink& sink) : endpoint_(endpoint), id_(id) {
    endpoint_.sinks.emplace(id, &sink);
    endpoint_.idle.cancel();
  }
  ~SequenceGuard() {
    auto it = endpoint_.sinks.find(id_);
    if (it != endpoint_.sinks.end()) {
      if (!it->second->finished) {
        endpoint_.engine.cancel(id_);
      }
      endpoint_.sinks.erase(it);
    }
  }
  SequenceGuard(const SequenceGuard&) = delete;
  SequenceGuard& operator=(const SequenceGuard&) = delete;

 private:
  ModelEndpoint& endpoint_;
  SequenceId id_;
};

struct Generation {
  openai::CompletionRequest request;
  Fault fault;
  HeaderList rate_headers;
  ModelEndpoint* endpoint = nullptr;
  int prompt_tokens = 0;
  int output_tokens = 0;
  std::string_view finish_reason;
  bool trace = false;
  std::string id;
  std::optional<openai::ToolFunction> tool_call;  // that answers in place of text
  std::string call_id;
  std::int64_t created = 0;
  std::int64_t first_token_ns = 0;
  std::int64_t last_token_ns = 0;
};

constexpr http::Header kJson{"Content-Type", "application/json"};

}  // namespace

struct SimServer::Impl : std::enable_shared_from_this<SimServer::Impl> {
  Impl(net::io_context& io, SimOptions opts) : io(io), options(std::move(opts)), faults(options.faults) {
    if (options.profiles.empty()) {
      throw std::invalid_argument("the simulator needs at least one --profile");
    }
    if (options.served_model_name && options.profiles.size() != 1) {
      throw std::invalid_argument("--served-model-name applies to a single --profile");
    }
    if (options.tokens_per_chunk < 1) {
      throw std::invalid_argument("--tokens-per-chunk must be at least 1");
    }
    if (!(options.tool_call_share >= 0 && options.tool_call_share <= 1)) {
      throw std::invalid_argument("--tool-call-share must be between 0 and 1");
    }
    if (options.engine.speedup <= 0) {
      throw std::invalid_argument("--speedup must be greater than 0");
    }
    for (const Profile& profile : options.profiles) {
      std::string name = options.served_model_name.value_or(std::string(profile.model->id));
      if (find(name) != nullptr) {
        throw std::invalid_argument("two profiles serve the model name '" + name + "'");
      }
      auto endpoint = std::make_unique<ModelEndpoint>(io, std::move(name), profile, options);
      if (endpoint->perf.kv_budget_bytes() <= 0) {
        throw std::invalid_argument(
            fmt::format("{}: the weights ({:.1f} GB) do not fit in {} x {:.0f} GB; use more devices (e.g. {}x{})",
                        profile.to_string(), endpoint->perf.weight_bytes() / 1e9, profile.devices,
                        profile.hardware->memory_bytes / 1e9, profile.hardware->id, profile.devices * 2));
      }
      endpoints.push_back(std::move(endpoint));
    }
  }

  ModelEndpoint* find(std::string_view name) {
    for (auto& e : endpoints) {
      if (e->name == name) {
        return e.get();
      }
    }
    return nullptr;
  }

  awaitable<void> handle(http::Exchange& ex) {
    auto self = shared_from_this();
    std::string_view path = ex.target().substr(0, ex.target().find('?'));
    const bool post = ex.method() == "POST";
    const bool get = ex.method() == "GET";
    const std::optional<std::string> model = openai::model_in_path(path);
    const std::optional<openai::Endpoint> kind = generating_endpoint(path);
    const bool embeddings = path == "/v1/embeddings";
    if (path == "/health" && get) {
      co_await ex.respond(200, "application/json", R"({"status":"ok"})");
    } else if (path == "/metrics" && get) {
      co_await ex.respond(200, "text/plain; version=0.0.4", metrics());
    } else if (path == "/v1/models" && get) {
      if (co_await authorized(ex)) {
        co_await ex.respond(200, "application/json", openai::model_list_json(model_names(), "infergate-sim"));
      }
    } else if (model && get) {
      if (co_await authorized(ex)) {
        if (find(*model) == nullptr) {
          co_await send_error(ex, openai::model_not_found(*model));
        } else {
          co_await ex.respond(200, "application/json", openai::model_json(*model, "infergate-sim"));
        }
      }
    } else if (kind && post) {
      if (co_await authorized(ex)) {
        co_await complete(ex, *kind);
      }
    } else if (embeddings && post) {
      if (co_await authorized(ex)) {
        co_await embed(ex);
      }
    } else if (path == "/health" || path == "/metrics" || path == "/v1/models" || model || kind || embeddings) {
      const openai::ApiError error = openai::method_not_allowed(ex.method(), path);
      // The methods the path takes (RFC 9110 section 15.5.6).
      const http::Header allow{"Allow", kind || embeddings ? "POST" : "GET, HEAD"};
      co_await ex.respond(error.status, "application/json", error.to_json(), {&allow, 1});
    } else {
      const openai::ApiError error = openai::route_not_found(ex.method(), path);
      co_await send_error(ex, error);
    }
  }

  static awaitable<void> server_gone() { co_return; }

  static std::optional<openai::Endpoint> generating_endpoint(std::string_view path) {
    for (const auto endpoint : {openai::Endpoint::chat, openai::Endpoint::completions, openai::Endpoint::responses}) {
      if (path.starts_with("/v1") && path.substr(3) == openai::endpoint_path(endpoint)) {
        return endpoint;
      }
    }
    return std::nullopt;
  }

  static awaitable<void> send_error(http::Exchange& ex, const openai::ApiError& error) {
    co_await ex.respond(error.status, "application/json", error.to_json());
  }

  // An error a fault asked for, shaped as real servers send it: 429 with Retry-After and the
  // OpenAI rate-limit headers, or the chosen status.
  static awaitable<void> send_injected_error(http::Exchange& ex, const Fault& fault) {
    if (fault.error_status) {
      const int status = *fault.error_status;
      const openai::ApiError error{status, status >= 500 ? "server_error" : "invalid_request_error",
                                   fmt::format("Injected fault: the server answered {}", status)};
      co_await send_error(ex, error);
      co_return;
    }
    const int seconds = *fault.rate_limit_after_s;
    const openai::ApiError error{
        429, "requests",
        fmt::format("Rate limit reached for requests (injected fault). Please try again in {}s.", seconds),
        std::nullopt, std::string("rate_limit_exceeded")};
    const std::string retry_after = std::to_string(seconds);
    const std::string reset = fmt::format("{}s", seconds);
    const std::array<http::Header, 3> headers{http::Header{"Retry-After", retry_after},
                                              http::Header{"x-ratelimit-remaining-requests", "0"},
                                              http::Header{"x-ratelimit-reset-requests", reset}};
    co_await ex.respond(429, "application/json", error.to_json(), headers);
  }

  // 429 as Groq words it, with Retry-After and the rate-limit headers.
  static awaitable<void> send_rate_limited(http::Exchange& ex, const Generation& gen, const Admission& a) {
    const bool requests = a.limited_by == "requests";
    const Quota& q = requests ? *a.requests : *a.tokens;
    const openai::ApiError error{
        429, std::string(a.limited_by),
        fmt::format("Rate limit reached for model `{}` on {} per minute ({}): Limit {}, Used {}, Requested {}. "
                    "Please try again in {}.",
                    gen.endpoint->name, a.limited_by, requests ? "RPM" : "TPM", q.limit, q.limit - q.remaining,
                    requests ? 1 : gen.prompt_tokens + gen.output_tokens, format_reset(a.retry_after)),
        std::nullopt, std::string("rate_limit_exceeded")};
    auto headers = gen.rate_headers;
    headers.emplace_back("Retry-After",
                         std::to_string(std::max<std::int64_t>(1, (a.retry_after.count() + 999) / 1000)));
    const auto views = header_views(headers);
    co_await ex.respond(429, "application/json", error.to_json(), views);
  }

  static std::vector<http::Header> header_views(const HeaderList& headers) {
    std::vector<http::Header> views;
    views.reserve(headers.size());
    for (const auto& [name, value] : headers) {
      views.push_back({name, value});
    }
    return views;
  }

  // Waits `duration` (a stall fault) or until the client leaves. The engine's wake-ups in between
  // do not end it.
  static awaitable<void> pause(Sink& sink, std::chrono::milliseconds duration) {
    if (duration.count() <= 0) {
      co_return;
    }
    const auto until = net::steady_timer::clock_type::now() + duration;
    while (!sink.client_gone && net::steady_timer::clock_type::now() < until) {
      sink.wake.expires_at(until);
      co_await sink.wake.async_wait(as_tuple);
    }
    sink.wake.expires_at(net::steady_timer::time_point::max());
  }

  // The faults that answer in the model's place (an error, a 429), planned into `fault`; true
  // when one of them, or a fault header that does not parse, has answered.
  awaitable<bool> answered_by_fault(http::Exchange& ex, Fault& fault) {
    if (auto problem = faults.plan(ex.header(kFaultHeader), fault)) {
      co_await send_error(ex, openai::invalid_request(*problem, std::string(kFaultHeader)));
      co_return true;
    }
    if (fault.error_status || fault.rate_limit_after_s) {
      co_await send_injected_error(ex, fault);
      co_return true;
    }
    co_return false;
  }

  // --rpm and --tpm: admits the request's prompt and planned output, keeping the rate-limit
  // headers for its answer; false once it has been answered 429.
  awaitable<bool> admitted(http::Exchange& ex, Generation& gen) {
    if (!options.rate_limits.rpm && !options.rate_limits.tpm) {
      co_return true;
    }
    const Admission admission =
        rate_limits.admit(gen.endpoint->name, options.rate_limits, gen.prompt_tokens + gen.output_tokens, unix_ms());
    gen.rate_headers = rate_limit_headers(admission);
    if (!admission.allowed) {
      ++rate_limited;
      co_await send_rate_limited(ex, gen, admission);
      co_return false;
    }
    co_return true;
  }

  // Waits for a whole (non-streamed) answer's sequence to finish, then plays the first-token stall
  // and the reset fault; false when nothing is to be sent: the client left or the connection was reset.
  static awaitable<bool> whole_answer_due(http::Exchange& ex, Sink& sink, const Fault& fault) {
    while (!sink.finished && !sink.client_gone) {
      co_await sink.wake.async_wait(as_tuple);
    }
    co_await pause(sink, fault.stall_first);
    if (sink.client_gone) {
      co_return false;
    }
    if (fault.reset_after_tokens) {
      ex.reset();
      co_return false;
    }
    co_return true;
  }

  awaitable<bool> authorized(http::Exchange& ex) {
    if (!options.api_key) {
      co_return true;
    }
    std::string_view auth = ex.header("Authorization");
    if (auth.starts_with("Bearer ") && auth.substr(7) == *options.api_key) {
      co_return true;
    }
    // Built before the co_await: GCC 12 miscompiles temporaries and ?: inside co_await expressions.
    const openai::ApiError error{
        401, "invalid_request_error",
        auth.empty() ? "Missing API key: send 'Authorization: Bearer <key>'" : "Incorrect API key provided",
        std::nullopt, std::string("invalid_api_key")};
    co_await send_error(ex, error);
    co_return false;
  }

  awaitable<void> complete(http::Exchange& ex, openai::Endpoint kind) {
    Generation gen;
    if (co_await answered_by_fault(ex, gen.fault)) {
      co_return;
    }
    if (auto error = openai::parse_completion_request(ex.body(), kind, gen.request)) {
      if (auto encoded = openai::encoded_body(ex.header("Content-Encoding"))) {
        const http::Header accept{"Accept-Encoding", "identity"};
        co_await ex.respond(encoded->status, "application/json", encoded->to_json(), {&accept, 1});
        co_return;
      }
      co_await send_error(ex, *error);
      co_return;
    }
    if (gen.fault.no_ignore_eos) {
      gen.request.ignore_eos = false;
      gen.request.min_tokens = 0;
    }
    gen.endpoint = find(gen.request.model);
    if (gen.endpoint == nullptr) {
      co_await send_error(ex, openai::model_not_found(gen.request.model));
      co_return;
    }
    if (auto error = plan(gen)) {
      co_await send_error(ex, *error);
      co_return;
    }
    if (!co_await admitted(ex, gen)) {
      co_return;
    }
    gen.trace = ex.header("x-infergate-trace") == "1";
    gen.id = fmt::format("{}-sim-{}",
                         kind == openai::Endpoint::chat          ? "chatcmpl"
                         : kind == openai::Endpoint::completions ? "cmpl"
                                                                 : "resp",
                         ++request_counter);
    gen.call_id = fmt::format("call_sim_{}", request_counter);
    gen.created = static_cast<std::int64_t>(std::time(nullptr));

    Sink sink(co_await net::this_coro::executor);
    const SequenceId sequence =
        gen.endpoint->engine.submit(gen.prompt_tokens, gen.output_tokens, std::move(gen.request.prefix_blocks));
    SequenceGuard guard(*gen.endpoint, sequence, sink);
    // A client that leaves wakes the session, which returns: the guard then cancels the sequence.
    const http::PeerWatchScope watch(ex, [&sink] {
      sink.client_gone = true;
      sink.wake.cancel();
    });
    if (gen.request.stream) {
      co_await stream(ex, gen, sink);
    } else {
      if (!co_await whole_answer_due(ex, sink, gen.fault)) {
        co_return;
      }
      gen.first_token_ns = sink.first_token_ns;
      gen.last_token_ns = sink.last_token_ns;
      std::string body = whole_response(gen);
      if (gen.fault.malformed_after_tokens) {
        body.resize(body.size() / 2);
      }
      const auto headers = header_views(gen.rate_headers);
      co_await ex.respond(200, "application/json", body, headers);
    }
  }

  // A pooling model's work: the inputs' prompt tokens computed as one prefill, batched with the
  // engine's other sequences (chunked prefill, as vLLM serves --task embed), then one vector each.
  awaitable<void> embed(http::Exchange& ex) {
    Generation gen;
    if (co_await answered_by_fault(ex, gen.fault)) {
      co_return;
    }
    openai::EmbeddingRequest request;
    if (auto error = openai::parse_embedding_request(ex.body(), request)) {
      co_await send_error(ex, *error);
      co_return;
    }
    gen.endpoint = find(request.model);
    if (gen.endpoint == nullptr) {
      co_await send_error(ex, openai::model_not_found(request.model));
      co_return;
    }
    std::size_t dims = 0;
    if (auto error = plan_embedding(request, gen, dims)) {
      co_await send_error(ex, *error);
      co_return;
    }
    if (!co_await admitted(ex, gen)) {
      co_return;
    }
    Sink sink(co_await net::this_coro::executor);
    const SequenceId sequence = gen.endpoint->engine.submit(gen.prompt_tokens, 0);
    SequenceGuard guard(*gen.endpoint, sequence, sink);
    const http::PeerWatchScope watch(ex, [&sink] {
      sink.client_gone = true;
      sink.wake.cancel();
    });
    if (!co_await whole_answer_due(ex, sink, gen.fault)) {
      co_return;
    }
    std::string body = embedding_response(request, gen.endpoint->json_name, dims, gen.prompt_tokens);
    if (gen.fault.malformed_after_tokens) {
      body.resize(body.size() / 2);
    }
    const auto headers = header_views(gen.rate_headers);
    co_await ex.respond(200, "application/json", body, headers);
  }

  // The prompt tokens of every input (each within the model's context) and the vector length.
  static std::optional<openai::ApiError> plan_embedding(const openai::EmbeddingRequest& request, Generation& gen,
                                                        std::size_t& dims) {
    const ModelSpec& model = *gen.endpoint->perf.profile().model;
    std::int64_t tokens = 0;
    for (std::size_t i = 0; i < request.inputs.size(); ++i) {
      const auto n = static_cast<std::int64_t>(request.inputs[i].tokens);
      if (n > model.max_context) {
        return openai::invalid_request(
            fmt::format("This model's maximum context length is {} tokens, however you requested {} tokens in "
                        "input[{}]. Please reduce your input.",
                        model.max_context, n, i),
            std::string("input"), std::string("context_length_exceeded"));
      }
      tokens += n;
    }
    if (!gen.endpoint->engine.fits(static_cast<int>(std::min<std::int64_t>(tokens, INT32_MAX)), 0)) {
      return openai::invalid_request(
          fmt::format("the inputs' {} tokens together need more KV cache than this deployment has ({:.1f} GB); "
                      "send fewer inputs per request",
                      tokens, gen.endpoint->engine.kv_budget_bytes() / 1e9),
          std::string("input"));
    }
    const auto hidden = static_cast<std::int64_t>(model.hidden);
    if (request.dimensions && *request.dimensions > hidden) {
      return openai::invalid_request(
          fmt::format("'dimensions' is {}; this model's embeddings have {} at most", *request.dimensions, hidden),
          std::string("dimensions"));
    }
    dims = static_cast<std::size_t>(request.dimensions.value_or(hidden));
    gen.prompt_tokens = static_cast<int>(tokens);
    return std::nullopt;
  }

  // Writes each token (or group of tokens_per_chunk) as one SSE event the moment the engine has
  // produced it. Returns when the client goes away.
  awaitable<void> stream(http::Exchange& ex, Generation& gen, Sink& sink) {
    const auto headers = header_views(gen.rate_headers);
    ex.begin_stream(200, "text/event-stream", headers);
    const bool chat = gen.request.endpoint == openai::Endpoint::chat;
    const bool responses = gen.request.endpoint == openai::Endpoint::responses;
    int sequence = 0;  // of the Responses API's events
    const std::optional<ToolCallAnswer> call = tool_answer_of(gen);
    std::string event;
    if (responses) {
      append_start_events(event, response_answer(gen, "", call), sequence);
      if (co_await ex.write_chunk(event)) {
        co_return;
      }
    }
    if (chat) {
      begin_event(event, gen);
      event +=
          call ? R"("delta":{"role":"assistant","content":null},)" : R"("delta":{"role":"assistant","content":""},)";
      event += R"("logprobs":null,"finish_reason":null}]})";
      event += "\n\n";
      if (co_await ex.write_chunk(event)) {
        co_return;
      }
    }
    const Fault& fault = gen.fault;
    int written = 0;
    int stalled_at = -1;
    bool malformed_sent = false;
    while (written < gen.output_tokens) {
      if (fault.reset_after_tokens && written >= *fault.reset_after_tokens) {
        ex.reset();
        co_return;
      }
      if (fault.malformed_after_tokens && !malformed_sent && written >= *fault.malformed_after_tokens) {
        malformed_sent = true;
        event = fmt::format("data: {{\"id\":\"{}\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\n\n", gen.id);
        if (co_await ex.write_chunk(event)) {
          co_return;
        }
      }
      const int ready = sink.produced - written;
      if (ready == 0 || (ready < options.tokens_per_chunk && !sink.finished)) {
        co_await sink.wake.async_wait(as_tuple);
        if (sink.client_gone) {
          co_return;
        }
        continue;
      }
      const auto stall = written == 0 ? fault.stall_first : fault.stall_between;
      if (stall.count() > 0 && stalled_at != written) {
        stalled_at = written;
        co_await pause(sink, stall);
        if (sink.client_gone) {
          co_return;
        }
        continue;  // more tokens may be ready now
      }
      // Stalled between events, each event keeps its size, so that every one of them waits.
      const int tokens = fault.stall_between.count() > 0 ? std::min(ready, options.tokens_per_chunk) : ready;
      if (responses) {
        event.clear();
        append_delta_event(event, response_answer(gen, "", call), sequence, written, tokens);
      } else if (chat && call) {
        begin_event(event, gen);
        event += R"("delta":{)";
        append_tool_call_delta(event, *call, written, tokens);
        event += R"(},"logprobs":null,"finish_reason":null}]})";
        event += "\n\n";
      } else {
        begin_event(event, gen);
        event += chat ? R"("delta":{"content":")" : R"("text":")";
        append_output(gen.request.prompt_hash, written, tokens, event);
        event += chat ? R"("},)" : R"(",)";
        event += R"("logprobs":null,"finish_reason":null}]})";
        event += "\n\n";
      }
      // Stamped as the bytes go to the kernel: a client can read them before this coroutine resumes.
      gen.last_token_ns = monotonic_ns();
      if (written == 0) {
        gen.first_token_ns = gen.last_token_ns;
      }
      if (co_await ex.write_chunk(event)) {
        co_return;
      }
      written += tokens;
    }
    if (responses) {
      std::string trace;
      append_trace(trace, gen, ex.received_ns());
      event.clear();
      append_end_events(event, response_answer(gen, trace, call), sequence);
      co_await ex.write_chunk(event, true);
      co_return;
    }
    begin_event(event, gen);
    event += chat ? R"("delta":{},)" : R"("text":"",)";
    fmt::format_to(std::back_inserter(event), R"("logprobs":null,"finish_reason":"{}"}}])", gen.finish_reason);
    if (gen.request.include_usage && !fault.no_usage) {
      event += "}\n\n";
      fmt::format_to(std::back_inserter(event),
                     R"(data: {{"id":"{}","object":"{}","created":{},"model":{},"choices":[])", gen.id,
                     chat ? "chat.completion.chunk" : "text_completion", gen.created, gen.endpoint->json_name);
      append_usage(event, gen);
    }
    append_trace(event, gen, ex.received_ns());
    event += "}\n\ndata: [DONE]\n\n";
    co_await ex.write_chunk(event, true);
  }

  // `data: {"id":...,"choices":[{"index":0,` — the common start of every streamed event.
  static void begin_event(std::string& event, const Generation& gen) {
    event.clear();
    const bool chat = gen.request.endpoint == openai::Endpoint::chat;
    fmt::format_to(std::back_inserter(event),
                   R"(data: {{"id":"{}","object":"{}","created":{},"model":{},"choices":[{{"index":0,)", gen.id,
                   chat ? "chat.completion.chunk" : "text_completion", gen.created, gen.endpoint->json_name);
  }

  static void append_usage(std::string& out, const Generation& gen) {
    fmt::format_to(std::back_inserter(out),
                   R"(,"usage":{{"prompt_tokens":{},"completion_tokens":{},"total_tokens":{}}})", gen.prompt_tokens,
                   gen.output_tokens, gen.prompt_tokens + gen.output_tokens);
  }

  static void append_trace(std::string& out, const Generation& gen, std::int64_t arrival_ns) {
    if (gen.trace) {
      fmt::format_to(std::back_inserter(out),
                     R"(,"infergate_trace":{{"arrival_ns":{},"first_token_ns":{},"last_token_ns":{}}})", arrival_ns,
                     gen.first_token_ns, gen.last_token_ns);
    }
  }

  static std::optional<ToolCallAnswer> tool_answer_of(const Generation& gen) {
    if (!gen.tool_call) {
      return std::nullopt;
    }
    return ToolCallAnswer{*gen.tool_call, gen.call_id, gen.request.prompt_hash, gen.output_tokens,
                          gen.finish_reason != "length"};
  }

  static ResponseAnswer response_answer(const Generation& gen, std::string_view extra,
                                        const std::optional<ToolCallAnswer>& call) {
    return ResponseAnswer{gen.id,
                          gen.created,
                          gen.endpoint->json_name,
                          gen.request.prompt_hash,
                          gen.prompt_tokens,
                          gen.output_tokens,
                          gen.finish_reason == "length",
                          !gen.fault.no_usage,
                          extra,
                          call ? &*call : nullptr};
  }

  std::string whole_response(const Generation& gen) const {
    const std::optional<ToolCallAnswer> call = tool_answer_of(gen);
    if (gen.request.endpoint == openai::Endpoint::responses) {
      std::string trace;
      append_trace(trace, gen, 0);
      return response_json(response_answer(gen, trace, call));
    }
    const bool chat = gen.request.endpoint == openai::Endpoint::chat;
    std::string body;
    fmt::format_to(std::back_inserter(body),
                   R"({{"id":"{}","object":"{}","created":{},"model":{},"choices":[{{"index":0,)", gen.id,
                   chat ? "chat.completion" : "text_completion", gen.created, gen.endpoint->json_name);
    if (chat && call) {
      body += R"("message":{"role":"assistant","content":null,)";
      append_tool_calls(body, *call);
      body += "},";
    } else {
      body += chat ? R"("message":{"role":"assistant","content":")" : R"("text":")";
      append_output(gen.request.prompt_hash, 0, gen.output_tokens, body);
      body += chat ? R"("},)" : R"(",)";
    }
    fmt::format_to(std::back_inserter(body), R"("logprobs":null,"finish_reason":"{}"}}])", gen.finish_reason);
    if (!gen.fault.no_usage) {
      append_usage(body, gen);
    }
    append_trace(body, gen, 0);
    body += "}";
    return body;
  }

  std::optional<openai::ApiError> plan(Generation& gen) {
    const auto& request = gen.request;
    const ModelSpec& model = *gen.endpoint->perf.profile().model;
    gen.prompt_tokens = static_cast<int>(std::max<std::size_t>(1, request.prompt_words));
    const std::int64_t room = model.max_context - gen.prompt_tokens;
    const std::int64_t max_tokens = request.max_tokens.value_or(room);
    if (room < 1 || max_tokens > room) {
      return openai::invalid_request(
          fmt::format("This model's maximum context length is {} tokens. However, you requested {} tokens ({} in "
                      "the messages, {} in the completion). Please reduce the length of the messages or completion.",
                      model.max_context, gen.prompt_tokens + max_tokens, gen.prompt_tokens, max_tokens),
          std::nullopt, std::string("context_length_exceeded"));
    }
    const std::int64_t natural = natural_length(request.prompt_hash);
    const std::int64_t target =
        request.ignore_eos ? max_tokens : std::clamp<std::int64_t>(natural, request.min_tokens, max_tokens);
    gen.output_tokens = static_cast<int>(std::max<std::int64_t>(1, target));
    const bool at_length = (request.ignore_eos || natural >= max_tokens) && gen.output_tokens == max_tokens;
    const openai::ToolChoice& tools = request.tool_choice;
    if (tools.forced) {
      gen.tool_call = tools.forced;
    } else if (tools.offered && chooses_tool_call(request.prompt_hash, options.tool_call_share)) {
      gen.tool_call = tools.offered;
    }
    gen.finish_reason = at_length ? "length" : gen.tool_call ? "tool_calls" : "stop";
    if (!gen.endpoint->engine.fits(gen.prompt_tokens, gen.output_tokens)) {
      return openai::invalid_request(
          fmt::format("{} prompt + {} output tokens need more KV cache than this deployment has ({:.1f} GB); "
                      "lower max_tokens",
                      gen.prompt_tokens, gen.output_tokens, gen.endpoint->engine.kv_budget_bytes() / 1e9),
          "max_tokens");
    }
    return std::nullopt;
  }

  std::vector<std::string> model_names() const {
    std::vector<std::string> names;
    for (const auto& e : endpoints) {
      names.push_back(e->name);
    }
    return names;
  }

  std::string metrics() const {
    std::string out;
    bool first = true;
    for (const auto& e : endpoints) {
      append_engine_metrics(out, e->name, e->engine, first);
      first = false;
    }
    faults.append_metrics(out);
    fmt::format_to(std::back_inserter(out),
                   "# HELP infergate_sim_rate_limited_total Requests refused by --rpm/--tpm.\n"
                   "# TYPE infergate_sim_rate_limited_total counter\ninfergate_sim_rate_limited_total {}\n",
                   rate_limited);
    return out;
  }

  void start() {
    auto self = shared_from_this();
    for (auto& endpoint : endpoints) {
      net::co_spawn(
          io, [self, e = endpoint.get()]() { return e->drive(); }, net::detached);
    }
    // A weak reference: the server holds this handler, and this object holds the server.
    server = std::make_unique<http::Server>(
        io,
        [weak = weak_from_this()](http::Exchange& ex) {
          auto alive = weak.lock();
          return alive ? alive->handle(ex) : server_gone();
        },
        options.limits);
  }

  net::io_context& io;
  SimOptions options;
  std::vector<std::unique_ptr<ModelEndpoint>> endpoints;
  std::unique_ptr<http::Server> server;
  std::uint64_t request_counter = 0;
  FaultInjector faults;
  LocalRateLimits rate_limits;
  std::uint64_t rate_limited = 0;
};

SimServer::SimServer(net::io_context& io, SimOptions options) : impl_(std::make_shared<Impl>(io, std::move(options))) {
  impl_->start();
}

SimServer::~SimServer() {
  impl_->server->close();
}

std::uint16_t SimServer::listen(const std::string& host, std::uint16_t port) {
  return impl_->server->listen(host, port);
}

std::vector<std::string> SimServer::model_names() const {
  return impl_->model_names();
}

}  // namespace infergate::sim
