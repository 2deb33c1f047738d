#include "gateway/proxy.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/container/small_vector.hpp>

#include <array>
#include <charconv>
#include <limits>
#include <random>
#include <span>
#include <variant>

#include "core/as_tuple.hpp"
#include "core/clock.hpp"
#include "core/random.hpp"
#include "core/rate_limiter.hpp"
#include "gateway/admin_api.hpp"
#include "gateway/charge.hpp"
#include "gateway/provider_limits.hpp"
#include "gateway/request_id.hpp"
#include "gateway/sse_relay.hpp"
#include "http/fetch.hpp"
#include "http/message_head.hpp"
#include "http/out_of_resources.hpp"
#include "openai/api_error.hpp"
#include "openai/model_list.hpp"
#include "openai/outgoing_body.hpp"
#include "openai/request_view.hpp"
#include "openai/stream_chunk.hpp"
#include "openai/usage_scanner.hpp"

namespace infergate::gateway {

namespace net = boost::asio;
using boost::system::error_code;
using net::awaitable;

struct Proxy::Attempt {
  AttemptOutcome outcome = AttemptOutcome::success;
  bool refused = false;                    // nobody listened: the strongest sign a deployment is down
  std::unique_ptr<http::Connection> conn;  // holding the response's head when there is one
  std::int64_t head_ns = 0;
  // Spent opening connections, and when the request went out (0: never): the upstream's time.
  std::int64_t connect_ns = 0;
  std::int64_t sent_ns = 0;
  std::string error;  // why the attempt failed, for the client and the log
  // The upstream's own refusal (429, 5xx), kept once its connection has gone back to the pool.
  int status = 0;
  std::string error_body;
  std::string retry_after;  // its Retry-After header, as sent
};

namespace {

bool is_timeout(const error_code& ec) {
  return ec == boost::beast::error::timeout || ec == net::error::timed_out;
}

// Upstream headers a client of the gateway still needs: rate-limit state and Retry-After.
bool passes_through(std::string_view name) {
  return http::iequals(name, "retry-after") || (name.size() > 12 && http::iequals(name.substr(0, 12), "x-ratelimit-"));
}

// How a stream that failed after it began ends: the error as its last event. On a Responses
// stream it is typed as that API's error events are ("event: error", "type", "code", "message"),
// and keeps the error object on which the SDKs raise, as on any other stream.
std::string stream_error_event(const std::string& message, std::string_view endpoint) {
  const openai::ApiError error{502, "upstream_error", message, std::nullopt, std::string("upstream_stream_error")};
  if (endpoint != "/responses") {
    return "data: " + error.to_json() + "\n\n";
  }
  const std::string object = error.to_json();
  return R"(event: error
data: {"type":"error","code":"upstream_stream_error","message":)" +
         openai::json_string(message) + R"(,"param":null,)" + object.substr(1) + "\n\n";
}

double jitter() {
  thread_local Rng rng(std::random_device{}());
  return rng.uniform();
}

// Feeds the deployment's outlier detection with what an attempt showed about its health:
// `status` is the response's, 0 when none came.
void record_outcome(Deployment& d, AttemptOutcome outcome, bool refused, int status, const OutlierPolicy& policy,
                    const GatewayMetrics& metrics) {
  if (outcome == AttemptOutcome::out_of_resources) {
    return;  // the deployment was never reached
  }
  UpstreamResult result = UpstreamResult::success;
  if (refused) {
    result = UpstreamResult::connect_refused;
  } else if (outcome == AttemptOutcome::connect_failed || outcome == AttemptOutcome::first_byte_timeout ||
             status >= 500) {
    result = UpstreamResult::failure;
  }
  if (d.outlier.record(policy, result, coarse_monotonic_ns())) {
    metrics.ejected(d);
    spdlog::warn("deployment {} of {} ejected ({} in a row)", d.provider, d.upstream_model,
                 d.outlier.ejections_in_a_row());
  }
}

}  // namespace

struct Proxy::Context {
  std::shared_ptr<const Snapshot> snapshot;  // the configuration this request started with
  RequestId request_id;
  std::int64_t received_ns = 0;
  // Views into the exchange's request, which outlives the context.
  std::string_view method;
  std::string_view path;
  std::string_view endpoint;  // one of kInferenceEndpoints
  openai::RequestView view;
  const ModelRoute* requested = nullptr;  // the model the client asked for
  const ModelRoute* route = nullptr;      // the model now being tried (a fallback after giving up)
  Deployment* deployment = nullptr;
  std::string_view body;  // the client's own bytes; each attempt sends them with its edits
  // The current attempt's body (here, not in the attempt's frame, which the frame pool would no
  // longer hold).
  std::optional<openai::OutgoingBody> outgoing;
  bool strip_usage = false;  // we asked for usage the client did not want
  int attempts = 0;
  int fallbacks = 0;
  int status = 0;
  std::int64_t upstream_sent_ns = 0;
  // Waited on upstreams before the attempt that answered: connecting, failed attempts, their
  // backoffs. Not the gateway's own time, so not part of its overhead.
  std::int64_t upstream_wait_ns = 0;
  std::int64_t first_token_ns = 0;
  std::int64_t last_token_ns = 0;
  std::optional<openai::Usage> usage;
  std::int64_t text_events = 0;
  std::shared_ptr<const KeyRecord> key;  // the caller's virtual key, once authenticated
  std::optional<Ticket> ticket;          // its parallel slot and token reservation, once admitted
  std::int64_t overhead_ns = 0;
  std::string error;
  bool client_gone = false;
  bool client_not_reading = false;  // a write to the client passed the send timeout
  // What the key's token reservation was replaced with, once it was: the ledger row records the
  // same, even where the request's end (a client gone during the last write) changed its status.
  std::optional<Charge> settled;
  http::Connection* upstream = nullptr;  // the upstream connection in use, for the peer watch
  net::steady_timer* backoff = nullptr;  // the retry backoff being waited on, for the peer watch
};

namespace {

// Time left before the deployment's total timeout, counted from the request's arrival (at least
// 1 ms, so that an expired deadline still fails through the normal timeout path).
std::chrono::milliseconds remaining(std::int64_t received_ns, const Deployment& d) {
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::nanoseconds(coarse_monotonic_ns() - received_ns));
  return std::max(std::chrono::milliseconds(1), d.total_timeout - elapsed);
}

}  // namespace

Proxy::Proxy(const SnapshotHandle& snapshot, ProxyOptions options, AccessLog* access_log, ControlPlane* control,
             const net::any_io_executor& executor)
    : snapshot_(snapshot), options_(options), access_log_(access_log), control_(control) {
  if (control_ != nullptr && control_->shared_state()) {
    shared_limits_ =
        std::make_unique<RedisRateLimits>(executor, parse_redis_url(control_->config().state),
                                          control_->config().state_timeout, control_->config().state_leases);
  }
}

namespace {

// The target without its query, in OpenAI's layout (Groq's SDK calls <base>/openai/v1/...).
std::string_view request_path(std::string_view target) {
  std::string_view path = target.substr(0, target.find('?'));
  if (path.starts_with("/openai/v1/")) {
    path.remove_prefix(7);
  }
  return path;
}

bool is_inference(std::string_view path) {
  return path.starts_with("/v1") && inference_endpoint(path.substr(3)).has_value();
}

}  // namespace

awaitable<void> Proxy::handle(http::Exchange& ex) {
  const std::string_view path = request_path(ex.target());
  if (ex.method() == "POST" && is_inference(path)) {
    return serve(ex, path);
  }
  return handle_other(ex, path);
}

void Proxy::begin_context(http::Exchange& ex, std::string_view path, Context& ctx) const {
  ctx.snapshot = snapshot_.load();
  ctx.received_ns = ex.received_ns();
  const std::string_view client_id = ex.header("X-Request-Id");
  ctx.request_id = RequestId::from_client(client_id);
  ctx.method = ex.method();
  ctx.path = path;
}

awaitable<void> Proxy::serve(http::Exchange& ex, std::string_view path) {
  Context ctx;
  begin_context(ex, path, ctx);
  ctx.endpoint = ctx.path.substr(3);
  active_.fetch_add(1, std::memory_order_relaxed);
  // A client that leaves cancels its upstream request at once: the watch closes the upstream
  // connection (or cancels the backoff), which ends whatever the proxy was waiting for.
  {
    const http::PeerWatchScope watch(ex, [&ctx] {
      ctx.client_gone = true;
      if (ctx.upstream != nullptr) {
        ctx.upstream->close();
      }
      if (ctx.backoff != nullptr) {
        ctx.backoff->cancel();
      }
    });
    // Screened and sent upstream here rather than in a coroutine of its own: each nested
    // coroutine is a frame to allocate and free, per request.
    std::unique_ptr<Refusal> refusal = screen(ex, ctx);
    if (!refusal && shared_limits_ && ctx.ticket) {
      if (auto now = admit_shared_now(ctx)) {
        refusal = std::move(*now);
      } else {
        refusal = co_await admit_shared(ctx);
      }
    }
    if (refusal) {
      co_await refuse(ex, ctx, *refusal);
    } else {
      // The Responses API sends its usage unasked, at the end of every stream.
      ctx.strip_usage =
          ctx.view.stream && !ctx.view.include_usage && ctx.endpoint != "/embeddings" && ctx.endpoint != "/responses";
      ctx.body = ex.body();
      co_await forward(ex, ctx);
    }
  }
  if (ctx.client_gone) {
    ctx.status = 499;  // nginx's code for "client closed request"
    ctx.error = ctx.client_not_reading
                    ? "client stopped reading: nothing it took within the send timeout; upstream request cancelled"
                    : "client disconnected; upstream request cancelled";
  }
  finish(ctx);
  active_.fetch_sub(1, std::memory_order_relaxed);
}

awaitable<void> Proxy::handle_other(http::Exchange& ex, std::string_view path) {
  Context ctx;
  begin_context(ex, path, ctx);
  const http::Header id_header{"X-Request-Id", ctx.request_id};
  const bool get = ctx.method == "GET";

  if (get && ctx.path == "/health") {
    co_await ex.respond(200, "application/json", R"({"status":"ok"})", {&id_header, 1});
    co_return;
  }
  if (get && ctx.path == "/ready") {
    // Ready when every model has a deployment that outlier detection has not ejected.
    const std::int64_t now = monotonic_ns();
    std::string unavailable;
    for (const std::string& name : ctx.snapshot->routes->model_names()) {
      const auto& deployments = ctx.snapshot->routes->find(name)->deployments;
      if (std::all_of(deployments.begin(), deployments.end(),
                      [&](const Deployment* d) { return d->outlier.ejected(now); })) {
        unavailable += unavailable.empty() ? "" : ",";
        unavailable += openai::json_string(name);
      }
    }
    const std::string body =
        unavailable.empty() ? R"({"status":"ready"})"
                            : R"({"status":"not_ready","models_without_healthy_deployments":[)" + unavailable + "]}";
    co_await ex.respond(unavailable.empty() ? 200 : 503, "application/json", body, {&id_header, 1});
    co_return;
  }
  if (get && ctx.path == "/metrics") {
    const std::string body = ctx.snapshot->metrics->scrape();
    co_await ex.respond(200, "text/plain; version=0.0.4", body);
    co_return;
  }
  if (ctx.path == "/admin" || ctx.path.starts_with("/admin/")) {
    co_await handle_admin(ex, control_, *ctx.snapshot->routes, ctx.path, ctx.request_id);
    co_return;
  }
  const std::optional<std::string> model = openai::model_in_path(ctx.path);
  if (get && (ctx.path == "/v1/models" || model)) {
    // A key sees the models it may use, listed or asked for by name.
    std::vector<std::string> names = ctx.snapshot->routes->model_names();
    if (control_ != nullptr) {
      auto auth = control_->authenticate(ex.header("Authorization"));
      if (const Refusal* refusal = std::get_if<Refusal>(&auth)) {
        co_await refuse(ex, ctx, *refusal);
        co_return;
      }
      const auto& key = std::get<std::shared_ptr<const KeyRecord>>(auth);
      std::erase_if(names, [&key](const std::string& name) { return !key->allows(name); });
    }
    if (model && std::find(names.begin(), names.end(), *model) == names.end()) {
      const std::string body = openai::model_not_found(*model).to_json();
      co_await ex.respond(404, "application/json", body, {&id_header, 1});
      co_return;
    }
    const std::string body =
        model ? openai::model_json(*model, "infergate") : openai::model_list_json(names, "infergate");
    co_await ex.respond(200, "application/json", body, {&id_header, 1});
    co_return;
  }
  // A 405 names the methods the path takes (RFC 9110 section 15.5.6).
  const bool read_only = ctx.path == "/health" || ctx.path == "/ready" || ctx.path == "/metrics" ||
                         ctx.path == "/v1/models" || model.has_value();
  const std::string_view allow = read_only ? "GET, HEAD" : is_inference(ctx.path) ? "POST" : "";
  openai::ApiError error =
      allow.empty() ? openai::route_not_found(ctx.method, ctx.path) : openai::method_not_allowed(ctx.method, ctx.path);
  if (ctx.path.starts_with("/v1/responses/")) {
    error.message +=
        ": a stored response lives on the upstream that made it, which the gateway does not track; ask that "
        "server, or send the conversation as input (with store: false) instead of previous_response_id";
  }
  const std::string body = error.to_json();
  const std::array<http::Header, 2> headers{id_header, http::Header{"Allow", allow}};
  co_await ex.respond(error.status, "application/json", body, std::span(headers.data(), allow.empty() ? 1 : 2));
}

namespace {

std::int64_t reservation_tokens(const openai::RequestView& view) {
  return ControlPlane::reservation(view.prompt_tokens_estimate, view.max_tokens);
}

}  // namespace

namespace {

// The deployment for the next attempt; null when every one is at its provider's rate limit
// (`soonest`: when the first of them resets). A deployment whose provider said its limit is spent
// gets nothing until the reset. Ejected deployments sit out their cooldown, unless every
// available one is ejected (then all are candidates again rather than failing outright: Envoy's
// panic mode).
Deployment* choose_deployment(const ModelRoute& route, std::span<Deployment* const> tried, std::int64_t now,
                              std::int64_t& soonest) {
  boost::container::small_vector<Deployment*, 8> available;
  boost::container::small_vector<Deployment*, 8> healthy;
  soonest = std::numeric_limits<std::int64_t>::max();
  for (Deployment* candidate : route.deployments) {
    const std::int64_t until = candidate->limited_until_ns.load(std::memory_order_relaxed);
    // `now` is the coarse clock, up to a tick behind: a retry whose timer waited out the rest (the
    // provider's Retry-After) would still see it resting. The precise clock decides, and is read
    // only for a deployment that seems to rest.
    if (until > now && until > monotonic_ns()) {
      soonest = std::min(soonest, until);
      continue;
    }
    available.push_back(candidate);
    if (!candidate->outlier.ejected(now)) {
      healthy.push_back(candidate);
    }
  }
  if (available.empty()) {
    return nullptr;
  }
  return route.balancer->choose(healthy.empty() ? available : healthy, tried);
}

std::unique_ptr<Refusal> every_deployment_limited(const ModelRoute& route, std::chrono::nanoseconds until_reset) {
  const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(until_reset);
  return std::make_unique<Refusal>(Refusal{
      openai::ApiError{429, "requests",
                       fmt::format("every deployment of '{}' is at its provider's rate limit; the first resets in {}",
                                   route.public_name, format_reset(wait)),
                       std::nullopt, std::string("rate_limit_exceeded")},
      {{"Retry-After", std::to_string(std::max<std::int64_t>(1, (wait.count() + 999) / 1000))}}});
}

}  // namespace

// Not a coroutine, and its refusal on the heap: a coroutine frame keeps every local of its body
// (here each kind of refusal) for its whole life, and the frame pool holds frames of up to 2 KiB
// only.
std::unique_ptr<Refusal> Proxy::screen(http::Exchange& ex, Context& ctx) {
  if (control_ != nullptr) {
    auto auth = control_->authenticate(ex.header("Authorization"));
    if (Refusal* refusal = std::get_if<Refusal>(&auth)) {
      return std::make_unique<Refusal>(std::move(*refusal));
    }
    ctx.key = std::get<std::shared_ptr<const KeyRecord>>(std::move(auth));
  }
  if (auto error = openai::parse_request_view(ex.body(), ctx.view)) {
    if (auto encoded = openai::encoded_body(ex.header("Content-Encoding"))) {
      return std::make_unique<Refusal>(Refusal{std::move(*encoded), {{"Accept-Encoding", "identity"}}});
    }
    return std::make_unique<Refusal>(Refusal{std::move(*error), {}});
  }
  ctx.route = ctx.requested = ctx.snapshot->routes->find(ctx.view.model);
  if (ctx.route == nullptr || ctx.route->deployments.empty()) {
    return std::make_unique<Refusal>(Refusal{openai::model_not_found(ctx.view.model), {}});
  }
  if (control_ != nullptr) {
    auto admitted = control_->admit(ctx.key, ctx.view.model, reservation_tokens(ctx.view));
    if (Refusal* refusal = std::get_if<Refusal>(&admitted)) {
      return std::make_unique<Refusal>(std::move(*refusal));
    }
    ctx.ticket.emplace(std::get<Ticket>(std::move(admitted)));
  }
  return nullptr;
}

std::optional<std::unique_ptr<Refusal>> Proxy::admit_shared_now(Context& ctx) {
  const RateLimits limits = ControlPlane::limits_of(*ctx.key);
  if (!limits.rpm && !limits.tpm) {
    return std::unique_ptr<Refusal>();
  }
  if (!shared_limits_->leased()) {
    return std::nullopt;  // every decision is a round trip: no bucket name to build twice
  }
  const std::int64_t reserve = reservation_tokens(ctx.view);
  auto admission =
      shared_limits_->admit_now(ControlPlane::bucket(*ctx.key, ctx.view.model), limits, reserve, unix_ms());
  if (!admission) {
    return std::nullopt;
  }
  return conclude_shared(ctx, std::move(admission), reserve);
}

awaitable<std::unique_ptr<Refusal>> Proxy::admit_shared(Context& ctx) {
  const RateLimits limits = ControlPlane::limits_of(*ctx.key);
  const std::int64_t reserve = reservation_tokens(ctx.view);
  const std::string bucket = ControlPlane::bucket(*ctx.key, ctx.view.model);
  auto admission = co_await shared_limits_->admit(bucket, limits, reserve, unix_ms());
  co_return conclude_shared(ctx, std::move(admission), reserve);
}

std::unique_ptr<Refusal> Proxy::conclude_shared(Context& ctx, std::optional<Admission> admission,
                                                std::int64_t reserve) {
  if (!admission) {
    ctx.snapshot->metrics->rate_limit_state_error();
    return control_->config().fail_open ? nullptr : std::make_unique<Refusal>(ControlPlane::state_unavailable());
  }
  if (auto refusal = control_->conclude(*ctx.ticket, std::move(*admission), ctx.view.model, reserve)) {
    return std::make_unique<Refusal>(std::move(*refusal));
  }
  return nullptr;
}

awaitable<void> Proxy::forward(http::Exchange& ex, Context& ctx) {
  const ModelRoute* origin = ctx.requested;
  std::size_t next_fallback = 0;
  int route_attempts = 0;
  // Inline capacity for the usual handful of deployments: no heap allocation per request.
  boost::container::small_vector<Deployment*, 8> tried;
  // This model has given up; its fallbacks, in order, get their own attempts within the deadline.
  // False when none is left.
  auto fall_back = [&](std::chrono::milliseconds elapsed) {
    const ModelRoute* fallback = nullptr;
    while (fallback == nullptr && next_fallback < origin->fallbacks.size() && elapsed < origin->retry.deadline) {
      fallback = ctx.snapshot->routes->find(origin->fallbacks[next_fallback++]);
    }
    if (fallback == nullptr) {
      return false;
    }
    spdlog::debug("{} falls back from {} to {} ({})", ctx.request_id.view(), ctx.route->public_name,
                  fallback->public_name, ctx.error);
    ctx.route = fallback;
    ++ctx.fallbacks;
    route_attempts = 0;
    tried.clear();
    return true;
  };
  for (;;) {
    const std::int64_t now = coarse_monotonic_ns();
    std::int64_t soonest = 0;
    Deployment* d = choose_deployment(*ctx.route, tried, now, soonest);
    if (d == nullptr) {
      for (const Deployment* limited : ctx.route->deployments) {
        ctx.snapshot->metrics->provider_limited(*limited);
      }
      const auto elapsed =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::nanoseconds(now - ctx.received_ns));
      if (fall_back(elapsed)) {
        continue;
      }
      const auto refusal = every_deployment_limited(*ctx.route, std::chrono::nanoseconds(soonest - now));
      co_await refuse(ex, ctx, *refusal);
      co_return;
    }
    tried.push_back(d);
    ctx.deployment = d;
    ++ctx.attempts;
    ++route_attempts;
    InFlightGuard in_flight(*d);

    Attempt a;
    co_await attempt(ctx, *d, a);
    if (ctx.client_gone) {
      co_return;
    }
    record_outcome(*d, a.outcome, a.refused, a.conn ? a.conn->head().status : 0, options_.outlier,
                   *ctx.snapshot->metrics);
    if (a.conn) {
      const http::ResponseHead& head = a.conn->head();
      if (auto until = provider_rest_until(head, coarse_monotonic_ns())) {
        std::int64_t current = d->limited_until_ns.load(std::memory_order_relaxed);
        while (current < *until && !d->limited_until_ns.compare_exchange_weak(current, *until)) {
        }
        spdlog::debug("{} {} says its rate limit is spent: resting it for {} ms", d->provider, d->upstream_model,
                      (*until - monotonic_ns()) / 1'000'000);
      }
      const int status = head.status;
      if (status == 429 || status >= 500) {
        a.outcome = status == 429 ? AttemptOutcome::rate_limited : AttemptOutcome::server_error;
        a.status = status;
        a.retry_after = head.header("Retry-After");
        a.error_body = co_await http::read_bounded_body(*a.conn);
        a.error =
            fmt::format("{} answered HTTP {}: {}", d->provider, status, openai::error_message_from_body(a.error_body));
        ctx.upstream = nullptr;
        pool_.release(d->origin, std::move(a.conn));
        if (ctx.client_gone) {
          co_return;
        }
      } else {
        a.outcome = status >= 400 ? AttemptOutcome::client_error : AttemptOutcome::success;
        ctx.upstream_wait_ns += a.connect_ns;
        co_await relay(ex, ctx, *a.conn, head, a.head_ns);
        ctx.upstream = nullptr;
        pool_.release(d->origin, std::move(a.conn));
        co_return;
      }
    }
    ctx.error = a.error;
    const std::int64_t failed_ns = monotonic_ns();
    ctx.upstream_wait_ns += a.connect_ns + (a.sent_ns != 0 ? failed_ns - a.sent_ns : 0);
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::nanoseconds(failed_ns - ctx.received_ns));
    const RetryDecision decision =
        decide_retry(ctx.route->retry, a.outcome, route_attempts, elapsed, parse_retry_after(a.retry_after), jitter());
    if (decision.retry) {
      spdlog::debug("{} attempt {} failed ({}); retrying in {} ms", ctx.request_id.view(), ctx.attempts, a.error,
                    decision.delay.count());
      co_await back_off(ctx, decision.delay);
      if (ctx.client_gone) {
        co_return;
      }
      continue;
    }
    if (worth_another_attempt(a.outcome) && fall_back(elapsed)) {
      continue;
    }
    co_await respond_failure(ex, ctx, a);
    co_return;
  }
}

// One attempt on `d`: a pooled (or fresh) connection, the request, the response head into `a`.
// Its own coroutine, so that what only it needs stays out of forward()'s frame.
awaitable<void> Proxy::attempt(Context& ctx, Deployment& d, Attempt& a) {
  const auto executor = co_await net::this_coro::executor;
  // The usage request and the upstream's own name for the model go in without copying or
  // re-serialising the body.
  openai::OutgoingBody& body = ctx.outgoing.emplace(ctx.body);
  if (ctx.strip_usage) {
    body.request_usage(ctx.view.stream_options_members);
  }
  if (d.upstream_model != ctx.view.model) {
    body.rename_model(d.upstream_model, ctx.view.model_members);
  }
  boost::container::small_vector<http::Header, 4> headers{{"Content-Type", "application/json"},
                                                          {"X-Request-Id", ctx.request_id}};
  if (!d.authorization.empty()) {
    headers.push_back({"Authorization", d.authorization});
  }
  if (ctx.view.stream) {
    headers.push_back({"Accept", "text/event-stream"});
  }
  // A pooled keep-alive connection may have been closed by the upstream meanwhile: one more try
  // on a fresh connection tells that apart from a real failure.
  for (bool fresh_only = false;; fresh_only = true) {
    auto conn = fresh_only ? nullptr : pool_.take(d.origin);
    const bool reused = conn != nullptr;
    if (!reused) {
      const std::int64_t connect_start = monotonic_ns();
      auto opened =
          co_await http::Connection::open(executor, d.base, d.connect_timeout, http::TlsOptions{d.tls_verify});
      a.connect_ns += monotonic_ns() - connect_start;
      if (ctx.client_gone) {
        co_return;
      }
      if (!opened && http::out_of_resources(opened.error())) {
        ctx.snapshot->metrics->upstream_connect_out_of_resources();
        a.outcome = AttemptOutcome::out_of_resources;
        a.error =
            fmt::format("the gateway has no room for a connection to {}: {} (raise its descriptor limit, ulimit -n)",
                        d.provider, opened.error().message());
        co_return;
      }
      if (!opened) {
        a.outcome = AttemptOutcome::connect_failed;
        a.refused = opened.error() == net::error::connection_refused;
        a.error = fmt::format("cannot connect to {}: {}", d.provider, opened.error().message());
        co_return;
      }
      conn = std::move(*opened);
      conn->keep_timer_armed();  // this thread's loop runs until the gateway stops anyway
    }
    ctx.upstream = conn.get();
    conn->set_io_timeout(std::min(d.first_byte_timeout, remaining(ctx.received_ns, d)));
    ctx.upstream_sent_ns = a.sent_ns = monotonic_ns();
    const error_code ec = co_await conn->request("POST", d.target(ctx.endpoint), headers, body.pieces());
    if (!ec && !ctx.client_gone) {
      a.head_ns = monotonic_ns();
      a.conn = std::move(conn);
      co_return;
    }
    ctx.upstream = nullptr;  // `conn` ends with this iteration
    if (ctx.client_gone) {
      co_return;
    }
    if (reused && !is_timeout(ec)) {
      continue;
    }
    a.outcome = is_timeout(ec) ? AttemptOutcome::first_byte_timeout : AttemptOutcome::connect_failed;
    a.error = is_timeout(ec) ? fmt::format("{} sent no response within {} ms", d.provider, d.first_byte_timeout.count())
                             : fmt::format("{} failed: {}", d.provider, ec.message());
    co_return;
  }
}

awaitable<void> Proxy::back_off(Context& ctx, std::chrono::milliseconds delay) {
  const auto executor = co_await net::this_coro::executor;
  const std::int64_t start = monotonic_ns();
  net::steady_timer backoff(executor, delay);
  ctx.backoff = &backoff;
  co_await backoff.async_wait(as_tuple);
  ctx.backoff = nullptr;
  ctx.upstream_wait_ns += monotonic_ns() - start;
}

// The last attempt's failure as the client's answer: the upstream's own 429 or 5xx, or ours.
awaitable<void> Proxy::respond_failure(http::Exchange& ex, Context& ctx, const Attempt& a) {
  if (a.outcome == AttemptOutcome::rate_limited || a.outcome == AttemptOutcome::server_error) {
    ctx.status = a.status;
    std::vector<http::Header> extra{{"X-Request-Id", ctx.request_id}};
    if (!a.retry_after.empty()) {
      extra.push_back({"Retry-After", a.retry_after});
    }
    co_await ex.respond(a.status, "application/json", a.error_body, extra);
  } else if (a.outcome == AttemptOutcome::out_of_resources) {
    const openai::ApiError error{503, "server_error", ctx.error, std::nullopt, std::string("gateway_out_of_resources")};
    co_await respond_error(ex, ctx, error, "1");
  } else if (a.outcome == AttemptOutcome::first_byte_timeout) {
    const openai::ApiError error{504, "server_error", ctx.error, std::nullopt, std::string("upstream_timeout")};
    co_await respond_error(ex, ctx, error);
  } else {
    const openai::ApiError error{503, "server_error",
                                 fmt::format("no deployment of '{}' could take the request after {} attempts; last: {}",
                                             ctx.view.model, ctx.attempts, ctx.error),
                                 std::nullopt, std::string("upstream_unavailable")};
    co_await respond_error(ex, ctx, error, "1");
  }
}

// Plain functions beside relay(), a coroutine: its frame keeps every local of its body for the
// whole response, and each resume touches that frame again.

bool Proxy::begin_response(http::Exchange& ex, Context& ctx, const http::ResponseHead& head, std::int64_t head_ns) {
  ctx.status = head.status;
  ctx.overhead_ns = (ctx.upstream_sent_ns - ctx.received_ns - ctx.upstream_wait_ns) + (monotonic_ns() - head_ns);
  char overhead[24];
  const auto overhead_end = std::to_chars(overhead, overhead + sizeof(overhead), ctx.overhead_ns / 1000).ptr;
  boost::container::small_vector<http::Header, 16> headers{
      {"X-Request-Id", ctx.request_id},
      {"x-infergate-overhead-us", std::string_view(overhead, static_cast<std::size_t>(overhead_end - overhead))}};
  // A caller limited by its key sees its key's limits, not the provider's.
  const bool own_limits = ctx.ticket && ctx.ticket->limited();
  std::optional<RateLimitHeaders> limits;
  if (own_limits) {
    limits.emplace(ctx.ticket->requests(), ctx.ticket->tokens());
  }
  for (std::size_t i = 0; i < head.header_count(); ++i) {
    const http::Header h = head.header_at(i);
    if (passes_through(h.name) && !(own_limits && !http::iequals(h.name, "retry-after"))) {
      headers.push_back(h);
    }
  }
  const std::string_view content_type = head.header("Content-Type");
  const bool sse = content_type.find("text/event-stream") != std::string_view::npos;
  // A stream's length can change on the way (its usage chunk may be removed); a body relayed
  // whole keeps the upstream's, as nginx and haproxy pass it on, so clients read it unframed.
  ex.begin_stream(head.status, content_type.empty() ? "application/json" : content_type, headers,
                  sse ? std::nullopt : head.content_length, limits ? limits->lines() : std::string_view());
  return sse;
}

std::string Proxy::failed_mid_response(Context& ctx, const boost::system::error_code& ec,
                                       std::chrono::milliseconds left, bool sse) {
  const Deployment& d = *ctx.deployment;
  ctx.error = fmt::format("{} failed mid-response: {}", d.provider, ec.message());
  if (is_timeout(ec)) {
    ctx.error = left < d.idle_timeout
                    ? fmt::format("{} exceeded the total timeout of {} ms", d.provider, d.total_timeout.count())
                    : fmt::format("{} went silent for {} ms mid-response", d.provider, d.idle_timeout.count());
  }
  return sse ? stream_error_event(ctx.error, ctx.endpoint) : std::string();
}

bool Proxy::write_failed(Context& ctx, const error_code& ec) {
  if (!ec) {
    return false;  // nearly every write: no comparison of error categories
  }
  ctx.client_not_reading = ctx.client_not_reading || ec == boost::beast::error::timeout;
  return true;
}

std::string Proxy::event_too_long(Context& ctx, std::size_t limit) {
  ctx.error = fmt::format("{} sent an event of more than {} bytes without its end; the stream was cut",
                          ctx.deployment->provider, limit);
  return stream_error_event(ctx.error, ctx.endpoint);
}

awaitable<void> Proxy::relay(http::Exchange& ex, Context& ctx, http::Connection& conn, const http::ResponseHead& head,
                             std::int64_t head_ns) {
  const bool sse = begin_response(ex, ctx, head, head_ns);
  // When the last read from the upstream ended: the head's, for body bytes that came with it.
  std::int64_t now = head_ns;
  // What is read on the way: the events of a stream, or a non-streamed body's usage.
  std::variant<SseRelay, openai::UsageScanner> reader =
      sse ? std::variant<SseRelay, openai::UsageScanner>(
                std::in_place_type<SseRelay>, ctx.strip_usage,
                ctx.endpoint == "/responses" ? EventDialect::responses : EventDialect::choices)
          : std::variant<SseRelay, openai::UsageScanner>(std::in_place_type<openai::UsageScanner>);
  // Each read from the upstream becomes one write to the client; the last one carries the
  // terminating chunk too.
  for (;;) {
    // The wait for the next bytes ends at the idle timeout or at the request's total deadline.
    const auto left = remaining(ctx.received_ns, *ctx.deployment);
    conn.set_io_timeout(std::min(ctx.deployment->idle_timeout, left));
    const std::uint64_t reads = conn.socket_reads();
    const auto piece = co_await conn.read_body_some();
    if (conn.socket_reads() != reads) {
      now = monotonic_ns();
    }
    if (ctx.client_gone) {
      co_return;
    }
    if (!piece) {
      const std::string event = failed_mid_response(ctx, piece.error(), left, sse);
      if (sse) {
        co_await ex.write_chunk(event, true);
      }
      co_return;  // a non-streamed body is left unterminated so the client sees the truncation
    }
    const bool done = piece->empty() || conn.body_complete();
    std::span<const std::string_view> data(&*piece, 1);
    if (auto* events = std::get_if<SseRelay>(&reader)) {
      events->feed(*piece, now);
      if (events->event_too_long()) {
        if (!events->pieces().empty() && write_failed(ctx, co_await ex.write_chunk_gathered(events->pieces()))) {
          co_return;
        }
        co_await ex.write_chunk(event_too_long(ctx, events->max_event_bytes()), true);
        co_return;  // the upstream connection, mid-body, is closed
      }
      if (done) {
        events->finish(now);
      }
      data = events->pieces();
      ctx.first_token_ns = events->first_token_ns();
      ctx.last_token_ns = events->last_token_ns();
      ctx.usage = events->usage();
      ctx.text_events = events->text_events();
    } else {
      auto& scanner = std::get<openai::UsageScanner>(reader);
      scanner.feed(*piece);
      if (done && scanner.complete_object()) {
        ctx.usage = scanner.usage();
        ctx.first_token_ns = ctx.last_token_ns = now;
      }
    }
    if (done) {
      // Before the client has the end of the answer, and so before it can send its next request:
      // that request is then counted against the key's real use, not this one's reservation.
      settle(ctx);
    }
    if (write_failed(ctx, co_await ex.write_chunk_gathered(data, done))) {
      co_return;
    }
    if (done) {
      break;
    }
  }
}

awaitable<void> Proxy::refuse(http::Exchange& ex, Context& ctx, const Refusal& refusal) {
  ctx.status = refusal.error.status;
  ctx.error = refusal.error.message;
  std::vector<http::Header> headers{{"X-Request-Id", ctx.request_id}};
  for (const auto& [name, value] : refusal.headers) {
    headers.push_back({name, value});
  }
  const std::string body = refusal.error.to_json();
  co_await ex.respond(refusal.error.status, "application/json", body, headers);
}

awaitable<void> Proxy::respond_error(http::Exchange& ex, Context& ctx, const openai::ApiError& error,
                                     std::string_view retry_after) {
  ctx.status = error.status;
  if (ctx.error.empty()) {
    ctx.error = error.message;
  }
  std::vector<http::Header> headers{{"X-Request-Id", ctx.request_id}};
  if (!retry_after.empty()) {
    headers.push_back({"Retry-After", retry_after});
  }
  const std::string body = error.to_json();
  co_await ex.respond(error.status, "application/json", body, headers);
}

void Proxy::settle(Context& ctx) {
  if (!ctx.ticket || ctx.settled) {
    return;
  }
  const Charge& used = ctx.settled.emplace(charge(ctx.view, ctx.usage, ctx.status, ctx.text_events));
  if (shared_limits_) {
    shared_limits_->reconcile(ctx.ticket->reservation(), used.prompt + used.completion, unix_ms());
  } else {
    control_->settle(*ctx.ticket, used.prompt + used.completion);
  }
}

void Proxy::finish(Context& ctx) {
  const std::int64_t now = monotonic_ns();
  const std::int64_t ended_ms = unix_ms_at(now);  // the ledger row's and the access log's
  if (ctx.key) {
    settle(ctx);
    const Charge used = ctx.settled ? *ctx.settled : charge(ctx.view, ctx.usage, ctx.status, ctx.text_events);
    LedgerRow row;
    row.ts_ms = ended_ms;
    row.request_id = ctx.request_id.view();
    row.key_id = ctx.key->id;
    row.model = ctx.view.model;
    if (ctx.deployment != nullptr) {
      row.upstream_model = ctx.deployment->upstream_model;
      row.provider = ctx.deployment->provider;
    }
    row.prompt_tokens = used.prompt;
    row.completion_tokens = used.completion;
    row.token_source = used.source;
    row.cost_usd = request_cost(used.prompt, used.completion, ctx.route ? ctx.route->price : std::nullopt);
    row.status = ctx.status;
    if (ctx.first_token_ns != 0) {
      row.ttft_ms = static_cast<double>(ctx.first_token_ns - ctx.received_ns) / 1e6;
    }
    row.duration_ms = static_cast<double>(now - ctx.received_ns) / 1e6;
    control_->record(row, *ctx.key);
  }
  RequestObservation o;
  o.route = ctx.requested;
  o.deployment = ctx.deployment;
  o.status = ctx.status;
  o.attempts = ctx.attempts;
  o.duration_s = static_cast<double>(now - ctx.received_ns) / 1e9;
  if (ctx.overhead_ns > 0) {
    o.overhead_s = static_cast<double>(ctx.overhead_ns) / 1e9;
  }
  if (ctx.first_token_ns != 0) {
    o.ttft_s = static_cast<double>(ctx.first_token_ns - ctx.received_ns) / 1e9;
  }
  if (ctx.usage) {
    const openai::Usage usage = charged(*ctx.usage);
    o.prompt_tokens = usage.prompt_tokens;
    o.completion_tokens = usage.completion_tokens;
    if (usage.completion_tokens > 1 && ctx.last_token_ns > ctx.first_token_ns) {
      o.tpot_s = static_cast<double>(ctx.last_token_ns - ctx.first_token_ns) / 1e9 /
                 static_cast<double>(usage.completion_tokens - 1);
    }
  }
  o.fallbacks = ctx.fallbacks;
  ctx.snapshot->metrics->observe(o);
  if (ctx.status < 400 && ctx.deployment != nullptr && ctx.first_token_ns != 0) {
    ctx.deployment->record_ttft((ctx.first_token_ns - ctx.upstream_sent_ns) / 1000);
  }
  if (access_log_ == nullptr) {
    return;
  }
  AccessRecord r;
  r.ts_ms = ended_ms;
  r.request_id = ctx.request_id;
  if (ctx.key) {
    r.key_id = ctx.key->id;
  }
  r.method = ctx.method;
  r.path = ctx.path;
  r.model = ctx.view.model;
  if (ctx.deployment != nullptr) {
    r.upstream_model = ctx.deployment->upstream_model;
    r.provider = ctx.deployment->provider;
  }
  r.status = ctx.status;
  r.attempts = ctx.attempts;
  r.fallbacks = ctx.fallbacks;
  if (o.ttft_s >= 0) {
    r.ttft_ms = o.ttft_s * 1e3;
  }
  if (o.tpot_s >= 0) {
    r.tpot_ms = o.tpot_s * 1e3;
  }
  r.prompt_tokens = o.prompt_tokens;
  r.completion_tokens = o.completion_tokens;
  r.duration_ms = o.duration_s * 1e3;
  r.overhead_us = ctx.overhead_ns / 1000;
  r.error = ctx.error;
  access_log_->write(r);
}

}  // namespace infergate::gateway
