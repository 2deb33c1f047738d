#pragma once
// Drives load at an OpenAI-compatible endpoint and records every request. Runs on one io_context
// in the calling thread; the records are analysed afterwards (summary.hpp).
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/arrival.hpp"
#include "bench/client_check.hpp"
#include "bench/request_headers.hpp"
#include "bench/request_record.hpp"
#include "bench/summary.hpp"
#include "bench/workload.hpp"
#include "http/client.hpp"
#include "http/url.hpp"

namespace infergate::bench {

struct Target {
  http::Url base;  // ends in /v1 (added when the user left it out)
  std::string api_key;
  std::vector<HeaderField> headers;  // --header: sent with every request and the model list
  bool trace = false;                // ask the server for infergate_trace (the simulator's ground truth)
  http::TlsOptions tls;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // connect, and each wait for bytes
};

struct LoadOptions {
  int concurrency = 1;         // closed loop: this many requests always in flight
  std::optional<double> rate;  // open loop: requests per second (concurrency becomes a cap)
  std::optional<ArrivalProcess> arrival;
  std::optional<int> max_concurrency;  // open loop cap; unlimited when absent
  // --replay: an open loop on the workload's trace, each request due at its own time divided by
  // this speed (2: twice as fast). Needs a workload with a trace.
  std::optional<double> replay_speed;
  std::uint64_t requests = 100;  // 0: run for duration_s instead
  double duration_s = 0;
  int warmup = 0;  // requests run and discarded before measuring
  double ramp_up_s = 0;
  double think_time_s = 0;  // multi-turn: pause between an answer and the next turn  // closed loop: streams start
                            // evenly over it; open loop: the rate rises from 0
  std::uint64_t seed = 1;
  std::uint64_t first_index = 0;  // of the first measured request: a later part of a run sends new prompts
  // A replay's sender k of n sends the trace's requests k, k + n, k + 2n, ... (first_index k).
  std::uint64_t index_stride = 1;
  double start_delay_s = 0;  // open loop: the first arrival's offset (senders sharing a rate interleave)
  int threads = 1;           // event loops, one per thread, each sending its share of the load
  bool busy_poll = true;     // spin on the event loop instead of sleeping: one core at 100%, exact timestamps
};

// A problem that stops the run before it starts (unreachable server, rejected key, no model).
class BenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// GET /v1/models. Throws BenchError with a message a user can act on.
std::vector<std::string> list_models(const Target& target);

// POSTs one request to `endpoint` outside a run and returns the answer's body. Throws BenchError,
// as list_models does, unless the answer is 200.
std::string post_once(const Target& target, openai::Endpoint endpoint, const std::string& body);

struct Progress {
  std::uint64_t done = 0;
  std::uint64_t failed = 0;
  std::int64_t output_tokens = 0;  // text events so far (usage arrives only at the end)
  double elapsed_s = 0;
};

struct RunResult {
  std::vector<RequestRecord> records;
  std::vector<std::string> warmup_failures;
  ClientLoad client;  // the busiest of the runner's threads over the whole run, warmup included
  // The signal that stopped the run early (bench/interrupt.hpp), 0 when it ran to its end. The
  // records are then those that finished before it.
  int interrupted_by = 0;
};

// The run's summary with the client's own load judged (summary.client); `more` as for summarize_run.
BenchSummary summarize_result(const RunResult& result, std::span<const double> more = {});

// One sender's share of `load` when `count` of them send it together: concurrency, requests, the
// rate and the warmup divided as evenly as they go, distinct prompts and seeds, and open-loop
// arrivals offset so constant ones interleave; a replayed trace dealt out request by request.
LoadOptions load_share(const LoadOptions& load, int count, int index);

// Runs warmup, then the measured load, on load.threads event loops; calls `on_progress` about
// twice a second with the counts of all of them. A stop asked for (bench/interrupt.hpp) ends it
// at once: requests in flight are dropped, and the result says it was interrupted.
RunResult run_load(const Target& target, const Workload& workload, const LoadOptions& load,
                   const std::function<void(const Progress&)>& on_progress = {});

}  // namespace infergate::bench
