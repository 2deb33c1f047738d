#include "bench/summary_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace infergate::bench {

void print_summary_table(std::FILE* out, const BenchSummary& s, const std::string& title, bool lengths_forced) {
  fmt::print(out, "{}\n", title);
  fmt::print(out, "  requests      {} completed, {} failed in {:.2f} s\n", s.completed, s.failed, s.duration_s);
  const bool generated = !prompt_only(s);
  if (generated) {
    fmt::print(out, "  throughput    {:.2f} req/s   {:.1f} output tok/s   {:.1f} total tok/s\n", s.requests_per_s,
               s.output_tokens_per_s, s.total_tokens_per_s);
    fmt::print(
        out,
        "  tokens        {} output vs {} requested (from {}; {} text events), {} prompt (server) vs {} requested\n",
        s.output_tokens, s.requested_output_tokens, s.token_source, s.text_events, s.prompt_tokens,
        s.requested_input_tokens);
  } else {
    fmt::print(out, "  throughput    {:.2f} req/s   {:.1f} input tok/s\n", s.requests_per_s, s.total_tokens_per_s);
    fmt::print(out, "  tokens        {} prompt (server) vs {} requested\n", s.prompt_tokens, s.requested_input_tokens);
  }
  if (s.tool_call_answers > 0) {
    fmt::print(out,
               "  tool calls    {} of {} answers called a tool (an agent's turns: their name and arguments are "
               "the text measured)\n",
               s.tool_call_answers, s.completed);
  }
  if (lengths_forced && s.other_output_lengths > 0) {
    fmt::print(out,
               "  WARNING       {} of {} answers were not the output length asked: the server does not honour "
               "ignore_eos and min_tokens, so E2E and throughput are not for the lengths asked. Compare TPOT, or "
               "measure a server that honours them (vLLM, SGLang); --no-ignore-eos stops sending them.\n",
               s.other_output_lengths, s.completed);
  }
  // The standard percentiles and any --percentiles, ascending: the statistics all carry the same.
  std::vector<double> columns{50, 90, 95, 99};
  for (const Quantile& q : s.ttft_ms.more) {
    columns.push_back(q.p);
  }
  std::sort(columns.begin(), columns.end());
  std::string heading = fmt::format("  {:<12} {:>9}", "ms", "mean");
  for (const double p : columns) {
    heading += fmt::format(" {:>9}", percentile_key(p));
  }
  fmt::print(out, "{} {:>9}\n", heading, "max");
  auto row = [&](const char* name, const Stat& st) {
    std::string line = fmt::format("  {:<12} {:>9.2f}", name, st.mean);
    for (const double p : columns) {
      const std::optional<double> value = st.at(p);
      line += value ? fmt::format(" {:>9.2f}", *value) : fmt::format(" {:>9}", "-");
    }
    fmt::print(out, "{} {:>9.2f}\n", line, st.max);
  };
  row("TTFT", s.ttft_ms);
  if (generated) {
    row("TPOT", s.tpot_ms);
    row("ITL", s.itl_ms);
  }
  row("E2E", s.e2e_ms);
  row("sched lag", s.scheduling_lag_ms);
  if (s.client) {
    const ClientCheck& c = *s.client;
    const std::string share = c.load.loop_busy ? fmt::format("event loop busy {:.0f}%", *c.load.loop_busy * 100)
                                               : fmt::format("CPU {:.0f}%", c.load.cpu * 100);
    fmt::print(out, "  client        {} of {:.2f} s, p99 scheduling lag {:.2f} ms: {}\n", share, c.load.wall_s,
               c.lag_p99_ms, c.bound ? "THE BOTTLENECK" : "not the bottleneck");
    if (c.bound) {
      fmt::print(out,
                 "  WARNING       the client limited this run ({}); the figures above describe the client, not the "
                 "server. Send from more threads (--threads) or processes (--workers), or lower the load.\n",
                 c.reason);
    }
  }
  print_failures(out, s);
}

void print_failures(std::FILE* out, const BenchSummary& summary) {
  for (const auto& [cls, failure] : summary.failures) {
    fmt::print(out, "  failures: {} x {}\n", failure.count, cls);
    for (const auto& example : failure.examples) {
      fmt::print(out, "    e.g. {}\n", example);
    }
  }
}

}  // namespace infergate::bench
