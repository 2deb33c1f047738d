#include "bench/runner.hpp"

#include <fmt/format.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <exception>
#include <thread>
#include <utility>

#include "bench/failure.hpp"
#include "bench/interrupt.hpp"
#include "core/clock.hpp"
#include "core/utf8_text.hpp"
#include "http/fetch.hpp"
#include "http/message_head.hpp"
#include "http/sse_parser.hpp"
#include "openai/api_error.hpp"
#include "openai/embedding_reply.hpp"
#include "openai/model_list.hpp"
#include "openai/stream_chunk.hpp"

namespace infergate::bench {

namespace net = boost::asio;
using boost::system::error_code;
using net::awaitable;
constexpr auto as_tuple = net::as_tuple(net::use_awaitable);

namespace {

// A whole non-streamed completion is kept to read its usage; 16 MiB holds far more tokens than any
// model generates in one answer.
constexpr std::size_t kMaxResponseBody = std::size_t{16} << 20;
constexpr std::uint64_t kWarmupIndexBase = std::uint64_t{1} << 48;  // warmup never reuses measured prompts

std::string http_failure_message(int status, std::string_view body, std::string_view what) {
  std::string message = openai::error_message_from_body(body);
  while (!message.empty() && (message.back() == '.' || message.back() == ' ')) {
    message.pop_back();
  }
  switch (status) {
    case 401:
    case 403:
      return fmt::format("{} rejected the API key ({}): {}. Pass --api-key or set OPENAI_API_KEY.", what, status,
                         message);
    case 404:
      return fmt::format("{} answered 404: {}", what, message);
    case 429:
      return fmt::format("{} is rate limiting (429): {}", what, message);
    default: {
      // OpenAI's own API and several hosts refuse the fields that fix output lengths.
      const bool refuses_fixed_lengths =
          (status == 400 || status == 422) &&
          (message.find("ignore_eos") != std::string::npos || message.find("min_tokens") != std::string::npos);
      return fmt::format("{} answered HTTP {}: {}{}", what, status, message,
                         refuses_fixed_lengths ? ". This server does not take ignore_eos and min_tokens: pass "
                                                 "--no-ignore-eos (output lengths are then the model's own)"
                                               : "");
    }
  }
}

double thread_cpu_s() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Counts every sender thread adds to; the first thread reports them.
struct SharedProgress {
  std::atomic<std::uint64_t> done{0};
  std::atomic<std::uint64_t> failed{0};
  std::atomic<std::int64_t> output_tokens{0};
};

// Sender threads finish their warmups, then start measuring at one instant, so their shares of an
// arrival schedule line up.
class StartLine {
 public:
  explicit StartLine(std::ptrdiff_t senders) : barrier_(senders, Stamp{&epoch_}) {}
  std::int64_t wait() {
    barrier_.arrive_and_wait();
    return epoch_.load();
  }
  // A sender that failed before reaching the line stops the others waiting for it.
  void leave() { barrier_.arrive_and_drop(); }

 private:
  struct Stamp {
    std::atomic<std::int64_t>* epoch;
    void operator()() const noexcept { epoch->store(monotonic_ns()); }
  };
  std::atomic<std::int64_t> epoch_{0};
  std::barrier<Stamp> barrier_;
};

class LoadRun {
 public:
  LoadRun(net::io_context& io, const Target& target, const Workload& workload, const LoadOptions& load,
          SharedProgress& shared, StartLine* start_line, const std::function<void(const Progress&)>& on_progress)
      : io_(io),
        target_(target),
        workload_(workload),
        load_(load),
        shared_(shared),
        start_line_(start_line),
        on_progress_(on_progress),
        path_(target.base.path + std::string(openai::endpoint_path(workload.options().endpoint))),
        signal_(io, net::steady_timer::time_point::max()) {
    headers_.push_back({"Content-Type", "application/json"});
    if (workload.options().stream) {
      headers_.push_back({"Accept", "text/event-stream"});
    }
    if (!target.api_key.empty()) {
      authorization_ = "Bearer " + target.api_key;
      headers_.push_back({"Authorization", authorization_});
    }
    if (target.trace) {
      headers_.push_back({"x-infergate-trace", "1"});
    }
    http::append_header_fields(target.headers, "infergate-bench", headers_);
  }

  [[nodiscard]] bool started() const { return started_ns_ != 0; }

  awaitable<void> run(RunResult& result) {
    if (load_.warmup > 0) {
      std::vector<RequestRecord> warm;
      co_await closed_loop(Budget{kWarmupIndexBase, static_cast<std::uint64_t>(load_.warmup)}, warm);
      for (const auto& r : warm) {
        if (!r.ok()) {
          result.warmup_failures.push_back(r.error_message);
        }
      }
    }
    started_ns_ = start_line_ != nullptr ? start_line_->wait() : monotonic_ns();
    progress_timer();
    if (load_.rate || load_.replay_speed) {
      co_await open_loop(result.records);
    } else {
      co_await closed_loop(Budget{load_.first_index, load_.requests, load_.duration_s}, result.records);
    }
    running_ = false;
    ticker_.reset();
  }

 private:
  // Requests still to send: a count, or until the duration has passed.
  struct Budget {
    std::uint64_t base = 0;  // first request and conversation number
    std::uint64_t total = 0;
    double duration_s = 0;
    std::uint64_t issued = 0;
    std::uint64_t conversations = 0;
  };

  bool available(const Budget& budget) const {
    if (budget.total > 0) {
      return budget.issued < budget.total;
    }
    return static_cast<double>(monotonic_ns() - started_ns_) / 1e9 < budget.duration_s;
  }

  // Sends a conversation's turns in order, each due the think time after the previous answer. It
  // stops at a failed turn (there is no answer to carry on from) or when the budget is spent.
  // `first_index` was taken from the budget for turn 0 by the caller.
  awaitable<void> conversation(std::uint64_t number, std::uint64_t first_index, std::int64_t due,
                               std::unique_ptr<http::Connection>& conn, Budget& budget,
                               std::vector<RequestRecord>& out) {
    const int turns = workload_.turns(number);
    std::vector<openai::Reply> replies;
    for (int turn = 0; turn < turns; ++turn) {
      RequestRecord record;
      if (turn == 0) {
        record.index = first_index;
      } else {
        if (!available(budget)) {
          break;
        }
        record.index = budget.base + budget.issued++;
        if (due > monotonic_ns()) {
          net::steady_timer think(io_);
          think.expires_at(to_time_point(due));
          co_await think.async_wait(as_tuple);
        }
      }
      record.conversation = number;
      record.turn = static_cast<std::uint32_t>(turn);
      record.due_ns = due;
      const PreparedRequest request = workload_.make_turn(number, turn, replies);
      record.model = request.model;
      co_await execute(record, conn, request);
      account(record);
      const bool ok = record.ok();
      due = record.last_byte_ns + static_cast<std::int64_t>(load_.think_time_s * 1e9);
      replies.push_back(std::move(record.reply));
      out.push_back(std::move(record));
      if (!ok) {
        break;
      }
    }
  }

  awaitable<void> closed_loop(Budget budget, std::vector<RequestRecord>& out) {
    int active = std::max(1, load_.concurrency);
    const double ramp_s = budget.base == kWarmupIndexBase ? 0 : load_.ramp_up_s;
    auto worker = [&](int number) -> awaitable<void> {
      std::unique_ptr<http::Connection> conn;
      std::int64_t ramp_start = 0;
      if (ramp_s > 0) {
        ramp_start = started_ns_ + static_cast<std::int64_t>(ramp_s * 1e9 * number / active);
        net::steady_timer start(io_);
        start.expires_at(to_time_point(ramp_start));
        co_await start.async_wait(as_tuple);
      }
      while (available(budget)) {
        const std::uint64_t index = budget.base + budget.issued++;
        const std::uint64_t conversation_number = budget.base + budget.conversations++;
        // A ramped worker's first stream is due when the ramp starts it, so that a timer that
        // fires late shows as scheduling lag (as in the open loop), not as a shifted schedule.
        const std::int64_t due = ramp_start != 0 ? std::exchange(ramp_start, 0) : monotonic_ns();
        co_await conversation(conversation_number, index, due, conn, budget, out);
      }
      if (--active == 0) {
        signal_.cancel();
      }
    };
    const int workers = active;
    for (int i = 0; i < workers; ++i) {
      net::co_spawn(io_, worker(i), net::detached);
    }
    while (active > 0) {
      co_await signal_.async_wait(as_tuple);
    }
  }

  // Requests (or, multi-turn, conversations) are due on the arrival schedule (or a replayed trace's
  // times) whatever the server does; a late send shows up as scheduling lag and in TTFT, never as a
  // silently shifted schedule (no coordinated omission).
  awaitable<void> open_loop(std::vector<RequestRecord>& out) {
    Rng rng(mix64(load_.seed) ^ 0xa5a5a5a5ULL);
    net::steady_timer timer(io_);
    const std::int64_t start = started_ns_ + static_cast<std::int64_t>(load_.start_delay_s * 1e9);
    Budget budget{load_.first_index, load_.requests, load_.duration_s};
    // A replayed request's time in the trace, at the replay's speed.
    auto traced_s = [&](std::uint64_t number) {
      const std::vector<TraceRequest>& trace = workload_.trace();
      return trace[number % trace.size()].at_s / *load_.replay_speed;
    };
    double schedule_s = load_.replay_speed ? traced_s(budget.base) : 0;  // on the full-rate schedule
    std::int64_t due = start + static_cast<std::int64_t>(schedule_s * 1e9);
    int in_flight = 0;
    auto task = [&](std::uint64_t number, std::uint64_t index, std::int64_t first_due) -> awaitable<void> {
      std::unique_ptr<http::Connection> conn;
      if (!idle_.empty()) {
        conn = std::move(idle_.back());
        idle_.pop_back();
      }
      co_await conversation(number, index, first_due, conn, budget, out);
      if (conn && conn->reusable()) {
        idle_.push_back(std::move(conn));
      }
      --in_flight;
      signal_.cancel();
    };
    while (available(budget)) {
      timer.expires_at(to_time_point(due));
      co_await timer.async_wait(as_tuple);
      while (load_.max_concurrency && in_flight >= *load_.max_concurrency) {
        co_await signal_.async_wait(as_tuple);
      }
      if (!available(budget)) {
        break;  // conversations already running spent it
      }
      ++in_flight;
      const std::uint64_t stride = load_.index_stride;
      const std::uint64_t index = budget.base + stride * budget.issued++;
      net::co_spawn(io_, task(budget.base + stride * budget.conversations++, index, due), net::detached);
      if (load_.replay_speed) {
        schedule_s = traced_s(budget.base + stride * budget.conversations);
      } else {
        schedule_s += load_.arrival->next_gap(rng);
      }
      due = start + static_cast<std::int64_t>(ramped_time(schedule_s, load_.ramp_up_s) * 1e9);
    }
    while (in_flight > 0) {
      co_await signal_.async_wait(as_tuple);
    }
  }

  void account(const RequestRecord& record) {
    shared_.done.fetch_add(1, std::memory_order_relaxed);
    shared_.failed.fetch_add(record.ok() ? 0 : 1, std::memory_order_relaxed);
    shared_.output_tokens.fetch_add(static_cast<std::int64_t>(record.text_events.size()), std::memory_order_relaxed);
  }

  void progress_timer() {
    if (!on_progress_) {
      return;
    }
    running_ = true;
    ticker_.emplace(io_);
    net::co_spawn(
        io_,
        [this]() -> awaitable<void> {
          while (running_ && ticker_) {
            ticker_->expires_after(std::chrono::milliseconds(500));
            co_await ticker_->async_wait(as_tuple);
            if (!running_) {
              break;
            }
            const Progress progress{shared_.done.load(std::memory_order_relaxed),
                                    shared_.failed.load(std::memory_order_relaxed),
                                    shared_.output_tokens.load(std::memory_order_relaxed),
                                    static_cast<double>(monotonic_ns() - started_ns_) / 1e9};
            on_progress_(progress);
          }
        },
        net::detached);
  }

  awaitable<void> execute(RequestRecord& record, std::unique_ptr<http::Connection>& conn,
                          const PreparedRequest& request) {
    record.requested_input_tokens = request.input_tokens;
    record.requested_output_tokens = request.output_tokens;
    record.dispatch_ns = monotonic_ns();
    // A kept-alive connection the server has since closed fails on first use; one fresh attempt
    // tells that apart from a real failure.
    for (int attempt = 0; attempt < 2; ++attempt) {
      const bool reused = conn != nullptr;
      if (!conn) {
        auto opened = co_await http::Connection::open(co_await net::this_coro::executor, target_.base, target_.timeout,
                                                      target_.tls);
        if (!opened) {
          record.fail(failure_class(opened.error(), Phase::connect),
                      failure_message(opened.error(), Phase::connect, target_.base.to_string()));
          record.last_byte_ns = monotonic_ns();
          co_return;
        }
        conn = std::move(*opened);
        conn->set_io_timeout(target_.timeout);
      }
      record.sent_ns = monotonic_ns();
      const std::string_view body[] = {request.body};
      if (const error_code ec = co_await conn->request("POST", path_, headers_, body)) {
        conn.reset();
        if (reused && failure_class(ec, Phase::request) == "connection_reset") {
          continue;
        }
        record.fail(failure_class(ec, Phase::request), failure_message(ec, Phase::request, target_.base.to_string()));
        record.last_byte_ns = monotonic_ns();
        co_return;
      }
      co_await read_response(record, *conn, conn->head(), request.inputs);
      if (!conn->reusable()) {
        conn.reset();
      }
      co_return;
    }
  }

  // `inputs`: the texts an embeddings request sent, each owed a vector.
  awaitable<void> read_response(RequestRecord& record, http::Connection& conn, const http::ResponseHead& head,
                                int inputs) {
    record.http_status = head.status;
    const std::string what = target_.base.to_string();
    if (head.status != 200) {
      const std::string body = co_await http::read_bounded_body(conn);
      record.last_byte_ns = monotonic_ns();
      record.fail(fmt::format("http_{}", head.status), http_failure_message(head.status, body, what));
      co_return;
    }
    if (embeddings()) {
      const std::string body = co_await http::read_bounded_body(conn, kMaxResponseBody);
      record.last_byte_ns = monotonic_ns();
      openai::EmbeddingReply reply;
      if (auto error = openai::parse_embedding_reply(body, reply)) {
        record.fail("malformed_response", fmt::format("the response body is {}", *error));
      } else if (reply.vectors == 0 || reply.dimensions == 0) {
        record.fail("no_output", "the answer holds no embedding");
      } else if (reply.vectors != static_cast<std::size_t>(inputs)) {
        record.fail("malformed_response",
                    fmt::format("the answer holds {} embeddings for the {} inputs sent", reply.vectors, inputs));
      } else {
        record.first_token_ns = record.last_byte_ns;  // the whole answer comes at once, as with --no-stream
        record.usage = reply.usage;
      }
      co_return;
    }
    if (!workload_.options().stream) {
      const std::string body = co_await http::read_bounded_body(conn, kMaxResponseBody);
      record.last_byte_ns = monotonic_ns();
      openai::ChunkView view;
      const auto parse = responses() ? openai::parse_response_object : openai::parse_completion_response;
      if (auto error = parse(body, view, reply_sink(record))) {
        record.fail("malformed_response", fmt::format("the response body is {}", *error));
        co_return;
      }
      take_chunk(record, view, record.last_byte_ns);
      co_return;
    }
    const std::string_view content_type = head.header("Content-Type");
    if (content_type.find("text/event-stream") == std::string_view::npos) {
      const std::string body = co_await http::read_bounded_body(conn);
      record.last_byte_ns = monotonic_ns();
      record.fail("non_sse", fmt::format("expected a text/event-stream reply to a streaming request, got '{}': {}",
                                         content_type, openai::error_message_from_body(body)));
      co_return;
    }
    http::SseParser parser;
    bool done = false;
    bool finished = false;
    std::int64_t now = 0;
    auto on_event = [&](const http::SseEvent& event) {
      ++record.events;
      if (event.data == "[DONE]") {
        done = true;
        return;
      }
      openai::ChunkView view;
      const auto parse = responses() ? openai::parse_response_stream_event : openai::parse_stream_chunk;
      if (auto error = parse(event.data, view, reply_sink(record))) {
        record.fail("malformed_stream",
                    fmt::format("event {} is {}: '{}'", record.events, *error, valid_utf8(event.data, 120)));
        return;
      }
      if (view.error) {
        record.fail("stream_error", fmt::format("the server sent an error mid-stream: {}", *view.error));
      }
      finished = finished || view.finish_reason.has_value();
      take_chunk(record, view, now);
    };
    for (;;) {
      auto piece = co_await conn.read_body_some();
      now = monotonic_ns();
      if (!piece) {
        record.last_byte_ns = now;
        record.fail(failure_class(piece.error(), Phase::response),
                    fmt::format("{} after {} text events", failure_message(piece.error(), Phase::response, what),
                                record.text_events.size()));
        co_return;
      }
      if (piece->empty()) {
        break;
      }
      record.last_byte_ns = now;
      parser.feed(*piece, on_event);
      if (parser.unfinished_bytes() > http::kMaxSseEventBytes) {
        record.fail("malformed_stream", fmt::format("event {} passed {} bytes without its end", record.events + 1,
                                                    http::kMaxSseEventBytes));
        co_return;
      }
    }
    parser.finish(on_event);
    if (!done && !finished) {
      record.fail("stream_cut", fmt::format("the stream ended after {} text events without a finish_reason or "
                                            "[DONE]",
                                            record.text_events.size()));
    } else if (record.text_events.empty()) {
      record.fail("no_output", "the stream finished without generating any text");
    }
  }

  [[nodiscard]] bool responses() const { return workload_.options().endpoint == openai::Endpoint::responses; }
  [[nodiscard]] bool embeddings() const { return workload_.options().endpoint == openai::Endpoint::embeddings; }

  // The answer's text is kept only when a later turn sends it back.
  openai::Reply* reply_sink(RequestRecord& record) const { return workload_.multi_turn() ? &record.reply : nullptr; }

  static void take_chunk(RequestRecord& record, const openai::ChunkView& view, std::int64_t now) {
    if (view.text_bytes > 0) {
      if (record.text_events.empty()) {
        record.first_token_ns = now;
      }
      record.text_events.push_back(TextEvent{now, static_cast<std::uint32_t>(view.text_bytes)});
      record.called_tool = record.called_tool || view.tool_call;
    }
    if (view.usage) {
      record.usage = view.usage;
    }
    if (view.trace) {
      record.trace = view.trace;
    }
  }

  net::io_context& io_;
  const Target& target_;
  const Workload& workload_;
  const LoadOptions& load_;
  SharedProgress& shared_;
  StartLine* start_line_;
  const std::function<void(const Progress&)>& on_progress_;
  std::string path_;
  std::string authorization_;
  std::vector<http::Header> headers_;
  net::steady_timer signal_;  // cancelled whenever a worker or request finishes
  std::vector<std::unique_ptr<http::Connection>> idle_;
  std::optional<net::steady_timer> ticker_;
  std::int64_t started_ns_ = 0;
  bool running_ = false;
};

// One request outside a run (the model list, a probe), with the run's key and headers.
// `route` follows the base URL's path: "/models", "/chat/completions".
awaitable<http::FetchedResponse> fetch_once(const Target& target, const char* method, std::string_view route,
                                            const std::string& body) {
  const std::string path = target.base.path + std::string(route);
  std::vector<http::Header> headers{{"Accept", "application/json"}};
  if (!body.empty()) {
    headers.push_back({"Content-Type", "application/json"});
  }
  const std::string authorization = "Bearer " + target.api_key;
  if (!target.api_key.empty()) {
    headers.push_back({"Authorization", authorization});
  }
  http::append_header_fields(target.headers, "infergate-bench", headers);
  auto response = co_await http::fetch(co_await net::this_coro::executor, target.base, method, path, headers, body,
                                       target.timeout, target.tls);
  if (!response) {
    const auto& error = response.error();
    throw BenchError(
        failure_message(error.ec, error.while_connecting ? Phase::connect : Phase::request, target.base.to_string()));
  }
  if (response->head.status != 200) {
    throw BenchError(
        http_failure_message(response->head.status, response->body, target.base.to_string() + std::string(route)));
  }
  co_return std::move(*response);
}

awaitable<std::vector<std::string>> fetch_models(const Target& target) {
  const std::string what = target.base.to_string();
  const http::FetchedResponse response = co_await fetch_once(target, "GET", "/models", "");
  auto models = openai::parse_model_list(response.body);
  if (!models) {
    throw BenchError(
        fmt::format("{}/models did not return a model list: {}", what, openai::error_message_from_body(response.body)));
  }
  co_return *models;
}

template <class T>
T run_on_fresh_context(std::function<awaitable<T>()> body) {
  net::io_context io{1};
  std::optional<T> value;
  std::exception_ptr error;
  net::co_spawn(io, body(), [&](const std::exception_ptr& e, T v) {
    error = e;
    if (!e) {
      value = std::move(v);
    }
  });
  io.run();
  if (error) {
    std::rethrow_exception(error);
  }
  return std::move(*value);
}

}  // namespace

std::vector<std::string> list_models(const Target& target) {
  return run_on_fresh_context<std::vector<std::string>>([&] { return fetch_models(target); });
}

std::string post_once(const Target& target, openai::Endpoint endpoint, const std::string& body) {
  return run_on_fresh_context<std::string>([&]() -> awaitable<std::string> {
    co_return (co_await fetch_once(target, "POST", openai::endpoint_path(endpoint), body)).body;
  });
}

BenchSummary summarize_result(const RunResult& result, std::span<const double> more) {
  BenchSummary summary = summarize_run(result.records, more);
  summary.client = check_client(result.client, summary.scheduling_lag_ms.p99);
  return summary;
}

namespace {

// How often a sleeping event loop looks for a stop asked for by a signal.
constexpr std::chrono::milliseconds kStopCheck{50};

// One event loop on the calling thread.
RunResult run_on_this_thread(const Target& target, const Workload& workload, const LoadOptions& load,
                             SharedProgress& shared, StartLine* start_line,
                             const std::function<void(const Progress&)>& on_progress) {
  net::io_context io{1};
  RunResult result;
  LoadRun run(io, target, workload, load, shared, start_line, on_progress);
  std::exception_ptr error;
  net::co_spawn(io, run.run(result), [&](const std::exception_ptr& e) { error = e; });
  const std::int64_t started = monotonic_ns();
  const double cpu_before = thread_cpu_s();
  // A stop asked for stops the loop where it is; the requests in flight are dropped with it.
  const auto stop_if_asked = [&] {
    if (stop_signal() != 0) {
      result.interrupted_by = stop_signal();
      io.stop();
    }
  };
  if (load.busy_poll) {
    // Never sleeping in epoll_wait avoids the wake-up latency of an idle core (tens to hundreds of
    // microseconds on virtual machines), which would otherwise land in every measured TTFT.
    std::int64_t busy_ns = 0;
    while (!io.stopped()) {
      const std::int64_t before = monotonic_ns();
      if (io.poll() > 0) {
        busy_ns += monotonic_ns() - before;
      }
      stop_if_asked();
    }
    result.client.loop_busy =
        static_cast<double>(busy_ns) / static_cast<double>(std::max<std::int64_t>(1, monotonic_ns() - started));
  } else {
    while (!io.stopped()) {
      io.run_for(kStopCheck);
      stop_if_asked();
    }
  }
  result.client.wall_s = static_cast<double>(monotonic_ns() - started) / 1e9;
  result.client.cpu = result.client.wall_s > 0 ? (thread_cpu_s() - cpu_before) / result.client.wall_s : 0;
  if ((error || result.interrupted_by != 0) && start_line != nullptr && !run.started()) {
    start_line->leave();  // the other senders go on (or stop) without this one
  }
  if (error && result.interrupted_by == 0) {
    std::rethrow_exception(error);
  }
  return result;
}

// Splits `total` over `count` parts, the first ones taking one more.
std::uint64_t share_of(std::uint64_t total, int count, int index) {
  const auto n = static_cast<std::uint64_t>(count);
  return total / n + (static_cast<std::uint64_t>(index) < total % n ? 1 : 0);
}

}  // namespace

LoadOptions load_share(const LoadOptions& load, int count, int index) {
  LoadOptions part = load;
  part.threads = 1;
  if (count <= 1) {
    return part;
  }
  part.concurrency = static_cast<int>(share_of(static_cast<std::uint64_t>(load.concurrency), count, index));
  if (load.requests > 0) {
    part.requests = share_of(load.requests, count, index);
  }
  part.warmup = static_cast<int>(share_of(static_cast<std::uint64_t>(load.warmup), count, index));
  if (load.max_concurrency) {
    part.max_concurrency =
        std::max(1, static_cast<int>(share_of(static_cast<std::uint64_t>(*load.max_concurrency), count, index)));
  }
  if (load.rate && load.arrival) {
    part.rate = *load.rate / count;
    part.arrival = load.arrival->scaled(1.0 / count);
    part.start_delay_s = load.start_delay_s + static_cast<double>(index) / *load.rate;
  }
  part.seed = load.seed + static_cast<std::uint64_t>(index) * 0x9e3779b97f4a7c15ULL;
  if (load.replay_speed) {
    part.first_index = load.first_index + static_cast<std::uint64_t>(index);
    part.index_stride = load.index_stride * static_cast<std::uint64_t>(count);
    return part;
  }
  part.first_index = load.first_index + (static_cast<std::uint64_t>(index) << 40);
  return part;
}

RunResult run_load(const Target& target, const Workload& workload, const LoadOptions& load,
                   const std::function<void(const Progress&)>& on_progress) {
  if (load.rate && !load.arrival) {
    throw BenchError("an open-loop run needs an arrival process");
  }
  if (load.replay_speed && (workload.trace().empty() || !(*load.replay_speed > 0))) {
    throw BenchError("a replay needs a trace and a speed above 0");
  }
  if (load.requests == 0 && !(load.duration_s > 0)) {
    throw BenchError("give --requests N or --duration S");
  }
  SharedProgress shared;
  const int threads = std::max(1, load.threads);
  if (threads == 1) {
    return run_on_this_thread(target, workload, load, shared, nullptr, on_progress);
  }
  const std::function<void(const Progress&)> quiet;
  std::vector<LoadOptions> shares;
  shares.reserve(static_cast<std::size_t>(threads));
  for (int k = 0; k < threads; ++k) {
    LoadOptions share = load_share(load, threads, k);
    // More threads than streams or requests: the extra ones have nothing to send.
    if ((load.requests == 0 || share.requests > 0) && (load.rate || load.replay_speed || share.concurrency > 0)) {
      shares.push_back(share);
    }
  }
  std::vector<RunResult> parts(shares.size());
  std::vector<std::exception_ptr> errors(shares.size());
  StartLine start_line(static_cast<std::ptrdiff_t>(shares.size()));
  {
    std::vector<std::jthread> senders;
    senders.reserve(shares.size());
    for (std::size_t k = 0; k < shares.size(); ++k) {
      senders.emplace_back([&, k] {
        try {
          parts[k] = run_on_this_thread(target, workload, shares[k], shared, &start_line, k == 0 ? on_progress : quiet);
        } catch (...) {
          errors[k] = std::current_exception();
        }
      });
    }
  }
  for (const auto& e : errors) {
    if (e) {
      std::rethrow_exception(e);
    }
  }
  RunResult result;
  for (auto& part : parts) {
    result.records.insert(result.records.end(), std::make_move_iterator(part.records.begin()),
                          std::make_move_iterator(part.records.end()));
    result.warmup_failures.insert(result.warmup_failures.end(), part.warmup_failures.begin(),
                                  part.warmup_failures.end());
    result.interrupted_by = std::max(result.interrupted_by, part.interrupted_by);
    result.client.wall_s = std::max(result.client.wall_s, part.client.wall_s);
    result.client.cpu = std::max(result.client.cpu, part.client.cpu);
    if (part.client.loop_busy) {
      result.client.loop_busy = std::max(result.client.loop_busy.value_or(0), *part.client.loop_busy);
    }
  }
  return result;
}

}  // namespace infergate::bench
