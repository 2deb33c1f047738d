#include "bench/summary.hpp"

#include <algorithm>
#include <limits>

#include "bench/request_metrics.hpp"

namespace infergate::bench {

void FailureClass::add_example(const std::string& message) {
  constexpr std::size_t kExamples = 3;
  if (examples.size() < kExamples && std::find(examples.begin(), examples.end(), message) == examples.end()) {
    examples.push_back(message);
  }
}

bool prompt_only(const BenchSummary& summary) {
  return summary.completed > 0 && summary.output_tokens == 0;
}

double token_throughput(const BenchSummary& summary) {
  return summary.output_tokens_per_s > 0 ? summary.output_tokens_per_s : summary.total_tokens_per_s;
}

double input_token_rate(const BenchSummary& summary) {
  return summary.total_tokens_per_s - summary.output_tokens_per_s;
}

namespace {

template <typename Keep>
BenchSummary summarize_kept(const std::vector<RequestRecord>& records, std::span<const double> more, Keep keep) {
  BenchSummary s;
  std::vector<double> ttft;
  std::vector<double> tpot;
  std::vector<double> itl;
  std::vector<double> e2e;
  std::vector<double> lag;
  std::int64_t start = std::numeric_limits<std::int64_t>::max();
  std::int64_t end = 0;
  std::uint64_t from_usage = 0;
  for (const auto& r : records) {
    if (!keep(r)) {
      continue;
    }
    start = std::min(start, r.due_ns);
    end = std::max(end, r.last_byte_ns);
    lag.push_back(static_cast<double>(r.dispatch_ns - r.due_ns) / 1e6);
    s.requested_input_tokens += r.requested_input_tokens;
    if (!r.ok()) {
      ++s.failed;
      auto& failure = s.failures[r.error_class];
      ++failure.count;
      failure.add_example(r.error_message);
      continue;
    }
    ++s.completed;
    const RequestMetrics m = measure_request(r, itl);
    ttft.push_back(m.ttft_ms);
    e2e.push_back(m.e2e_ms);
    if (m.tpot_ms) {
      tpot.push_back(*m.tpot_ms);
    }
    s.output_tokens += m.output_tokens;
    s.requested_output_tokens += r.requested_output_tokens;
    s.other_output_lengths += m.tokens_from_usage && m.output_tokens != r.requested_output_tokens ? 1 : 0;
    s.text_events += static_cast<std::int64_t>(r.text_events.size());
    s.tool_call_answers += r.called_tool ? 1 : 0;
    from_usage += m.tokens_from_usage ? 1 : 0;
    if (r.usage) {
      s.prompt_tokens += r.usage->prompt_tokens;
    }
  }
  if (end > start) {
    s.duration_s = static_cast<double>(end - start) / 1e9;
    s.requests_per_s = static_cast<double>(s.completed) / s.duration_s;
    s.output_tokens_per_s = static_cast<double>(s.output_tokens) / s.duration_s;
    s.total_tokens_per_s = static_cast<double>(s.output_tokens + s.prompt_tokens) / s.duration_s;
  }
  s.token_source = from_usage == s.completed ? "usage" : from_usage == 0 ? "events" : "mixed";
  for (auto [values, hist] :
       {std::pair{&ttft, &s.ttft_hist}, {&tpot, &s.tpot_hist}, {&itl, &s.itl_hist}, {&e2e, &s.e2e_hist}}) {
    for (double v : *values) {
      hist->add(v);
    }
  }
  s.ttft_ms = summarize(ttft, more);
  s.tpot_ms = summarize(tpot, more);
  s.itl_ms = summarize(itl, more);
  s.e2e_ms = summarize(e2e, more);
  s.scheduling_lag_ms = summarize(lag, more);
  return s;
}

}  // namespace

BenchSummary summarize_run(const std::vector<RequestRecord>& records, std::span<const double> more) {
  return summarize_kept(records, more, [](const RequestRecord&) { return true; });
}

BenchSummary summarize_model(const std::vector<RequestRecord>& records, std::uint32_t model,
                             std::span<const double> more) {
  return summarize_kept(records, more, [model](const RequestRecord& r) { return r.model == model; });
}

}  // namespace infergate::bench
