#pragma once
// The headline figures of a run, derived from its records.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/client_check.hpp"
#include "bench/histogram.hpp"
#include "bench/percentiles.hpp"
#include "bench/request_record.hpp"

namespace infergate::bench {

struct FailureClass {
  std::uint64_t count = 0;
  std::vector<std::string> examples;  // the first few distinct messages, as the user should read them

  // Keeps `message` as an example unless it is one already or there are enough: a class whose
  // requests all failed alike shows that message once, and room stays for a different one.
  void add_example(const std::string& message);
};

struct BenchSummary {
  std::uint64_t completed = 0;
  std::uint64_t failed = 0;
  double duration_s = 0;  // the measured window: first due time to last byte
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
  double total_tokens_per_s = 0;
  std::int64_t output_tokens = 0;
  std::int64_t prompt_tokens = 0;  // as the server reported them (usage), where it did
  std::int64_t requested_input_tokens = 0;
  std::int64_t requested_output_tokens = 0;  // of the completed requests
  // Completed requests whose output, by the server's usage, was not the length asked: a server
  // that does not honour ignore_eos and min_tokens, where they were sent.
  std::uint64_t other_output_lengths = 0;
  std::int64_t text_events = 0;        // text-carrying events, beside the token count
  std::int64_t tool_call_answers = 0;  // completed answers that called a tool
  std::string token_source;            // "usage", "events" or "mixed": where output token counts came from
  Stat ttft_ms;
  Stat tpot_ms;
  Stat itl_ms;
  Stat e2e_ms;
  Stat scheduling_lag_ms;
  // The same samples, bucketed: what reports draw distributions from and merges pool exactly.
  LogHistogram ttft_hist;
  LogHistogram tpot_hist;
  LogHistogram itl_hist;
  LogHistogram e2e_hist;
  std::map<std::string, FailureClass> failures;
  std::optional<ClientCheck> client;  // set by the caller, which knows how the client fared
};

// Requests were answered yet nothing was generated: an embeddings run, with no TPOT, ITL or
// decode rate to show.
bool prompt_only(const BenchSummary& summary);

// Runs that together generated nothing and answered something (an embeddings sweep's levels, or
// the results a report compares): measured by the input they take in, with no decode figures. A
// run where every request failed does not decide it. `summary_of` projects an element to its summary.
template <class Runs, class Project>
bool prompt_only(const Runs& runs, Project summary_of) {
  bool answered = false;
  for (const auto& run : runs) {
    const BenchSummary& s = std::invoke(summary_of, run);
    if (s.output_tokens > 0) {
      return false;
    }
    answered = answered || s.completed > 0;
  }
  return answered;
}

// Output tokens/s; for a run that generated nothing (embeddings), the prompt tokens/s it took in.
double token_throughput(const BenchSummary& summary);

// Prompt tokens/s: the total rate less the output rate.
double input_token_rate(const BenchSummary& summary);

// The rate a table or chart of runs gives each of them: input tokens/s when the runs together are
// prompt-only (see above), else output tokens/s, so that every row follows its column's title.
inline double measured_rate(const BenchSummary& summary, bool prompts) {
  return prompts ? input_token_rate(summary) : summary.output_tokens_per_s;
}

// `more`: the percentiles beyond the standard four (--percentiles) every statistic gets.
BenchSummary summarize_run(const std::vector<RequestRecord>& records, std::span<const double> more = {});
// The same over the records that asked for `model` alone (RequestRecord::model), read in place.
BenchSummary summarize_model(const std::vector<RequestRecord>& records, std::uint32_t model,
                             std::span<const double> more = {});

}  // namespace infergate::bench
