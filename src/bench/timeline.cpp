#include "bench/timeline.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace infergate::bench {

namespace {

// Requests in flight as a step function: +1 when the client dispatched a request, -1 at its last
// byte. Sorted by time, ends before starts at the same instant.
std::vector<std::pair<std::int64_t, int>> in_flight_steps(const std::vector<RequestRecord>& records) {
  std::vector<std::pair<std::int64_t, int>> steps;
  steps.reserve(records.size() * 2);
  for (const auto& r : records) {
    steps.emplace_back(r.dispatch_ns, +1);
    steps.emplace_back(std::max(r.last_byte_ns, r.dispatch_ns), -1);
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

// Output tokens each text event carried: the request's count shared evenly over its events.
double tokens_per_event(const RequestRecord& r) {
  if (r.text_events.empty()) {
    return 0;
  }
  const bool usage = r.ok() && r.usage && r.usage->completion_tokens > 0;
  return usage ? static_cast<double>(r.usage->completion_tokens) / static_cast<double>(r.text_events.size()) : 1.0;
}

std::int64_t origin_ns(const std::vector<RequestRecord>& records) {
  std::int64_t origin = std::numeric_limits<std::int64_t>::max();
  for (const auto& r : records) {
    origin = std::min(origin, r.due_ns);
  }
  return origin;
}

// The time-weighted median of the step function over [from, to].
double weighted_median(const std::vector<std::pair<std::int64_t, int>>& steps, std::int64_t from, std::int64_t to) {
  std::vector<std::pair<int, std::int64_t>> spans;  // (level, time spent at it)
  int level = 0;
  std::int64_t at = from;
  for (const auto& [t, delta] : steps) {
    if (t > at && at < to) {
      spans.emplace_back(level, std::min(t, to) - at);
      at = std::min(t, to);
    }
    level += delta;
  }
  if (spans.empty()) {
    return level;
  }
  std::sort(spans.begin(), spans.end());
  std::int64_t total = 0;
  for (const auto& s : spans) {
    total += s.second;
  }
  std::int64_t seen = 0;
  for (const auto& [value, span] : spans) {
    seen += span;
    if (2 * seen >= total) {
      return value;
    }
  }
  return spans.back().first;
}

// A first token, or (embeddings, --no-stream) the whole answer at once: a TTFT to count.
bool has_first_token(const RequestRecord& r) {
  return r.ok() && r.first_token_ns > 0;
}

PhaseSpan phase(const std::vector<const RequestRecord*>& records, std::int64_t from, std::int64_t to) {
  PhaseSpan span;
  span.duration_s = static_cast<double>(std::max<std::int64_t>(0, to - from)) / 1e9;
  span.requests = records.size();
  std::vector<double> ttft;
  ttft.reserve(records.size());
  for (const auto* r : records) {
    if (has_first_token(*r)) {
      ttft.push_back(static_cast<double>(r->first_token_ns - r->due_ns) / 1e6);
    }
  }
  span.ttft_ms = summarize(ttft);
  return span;
}

}  // namespace

TimeSeries time_series(const std::vector<RequestRecord>& records, double interval_s) {
  TimeSeries series;
  series.interval_s = interval_s;
  if (records.empty()) {
    return series;
  }
  const std::int64_t origin = origin_ns(records);
  std::int64_t end = origin;
  for (const auto& r : records) {
    end = std::max(end, r.last_byte_ns);
  }
  const auto width = static_cast<std::int64_t>(interval_s * 1e9);
  const auto buckets = static_cast<std::size_t>((end - origin) / width + 1);
  series.t_s.resize(buckets);
  series.in_flight.assign(buckets, 0);
  series.output_tokens.assign(buckets, 0);
  series.input_tokens.assign(buckets, 0);
  series.started.assign(buckets, 0);
  series.completed.assign(buckets, 0);
  series.failed.assign(buckets, 0);
  series.ttft_ms.assign(buckets, std::nullopt);
  std::vector<double> ttft_sum(buckets, 0);
  std::vector<std::uint64_t> ttft_count(buckets, 0);
  auto bucket = [&](std::int64_t ns) {
    return std::min(buckets - 1, static_cast<std::size_t>(std::max<std::int64_t>(0, ns - origin) / width));
  };
  for (std::size_t i = 0; i < buckets; ++i) {
    series.t_s[i] = static_cast<double>(i) * interval_s;
  }
  for (const auto& r : records) {
    ++series.started[bucket(r.dispatch_ns)];
    if (r.usage) {
      series.input_tokens[bucket(r.dispatch_ns)] += static_cast<double>(r.usage->prompt_tokens);
    }
    ++(r.ok() ? series.completed : series.failed)[bucket(r.last_byte_ns)];
    const double per_event = tokens_per_event(r);
    for (const auto& e : r.text_events) {
      series.output_tokens[bucket(e.ns)] += per_event;
    }
    if (has_first_token(r)) {
      const std::size_t b = bucket(r.first_token_ns);
      ttft_sum[b] += static_cast<double>(r.first_token_ns - r.due_ns) / 1e6;
      ++ttft_count[b];
    }
  }
  for (std::size_t i = 0; i < buckets; ++i) {
    if (ttft_count[i] > 0) {
      series.ttft_ms[i] = ttft_sum[i] / static_cast<double>(ttft_count[i]);
    }
  }
  // Integrate the in-flight step function over each interval.
  int level = 0;
  std::int64_t at = origin;
  auto accumulate = [&](std::int64_t until) {
    while (at < until) {
      const std::size_t b = bucket(at);
      const std::int64_t bucket_end = origin + static_cast<std::int64_t>(b + 1) * width;
      const std::int64_t upto = std::min(until, bucket_end);
      series.in_flight[b] += static_cast<double>(level) * static_cast<double>(upto - at) / static_cast<double>(width);
      at = upto;
    }
  };
  for (const auto& [t, delta] : in_flight_steps(records)) {
    accumulate(t);
    level += delta;
  }
  return series;
}

std::optional<SteadyState> steady_state(const std::vector<RequestRecord>& records) {
  if (records.empty()) {
    return std::nullopt;
  }
  const std::int64_t origin = origin_ns(records);
  std::int64_t last_dispatch = origin;
  std::int64_t first_finish = std::numeric_limits<std::int64_t>::max();
  for (const auto& r : records) {
    last_dispatch = std::max(last_dispatch, r.dispatch_ns);
    first_finish = std::min(first_finish, r.last_byte_ns);
  }
  const auto steps = in_flight_steps(records);
  SteadyState steady;
  steady.level = weighted_median(steps, origin, std::max(last_dispatch, origin + 1));
  const double threshold = kSteadyFraction * steady.level;

  std::optional<std::int64_t> reached;
  std::int64_t last_at_level = origin;
  bool was_at_level = false;
  int level = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    level += steps[i].second;
    const std::int64_t t = steps[i].first;
    const bool settled = i + 1 == steps.size() || steps[i + 1].first != t;  // all steps at t applied
    if (!settled) {
      continue;
    }
    const bool at_level = level >= threshold && level > 0;
    if (at_level) {
      reached = reached.value_or(t);
    } else if (was_at_level) {
      last_at_level = t;  // in-flight fell below the level here
    }
    was_at_level = at_level;
  }
  if (!reached) {
    return std::nullopt;
  }
  const std::int64_t start = std::max(*reached, first_finish);
  const std::int64_t end = last_at_level;
  if (end <= start) {
    return std::nullopt;
  }

  std::vector<RequestRecord> inside;
  std::vector<const RequestRecord*> before;
  std::vector<const RequestRecord*> after;
  double tokens = 0;
  std::int64_t prompt_tokens = 0;
  std::uint64_t finished_inside = 0;
  for (const auto& r : records) {
    if (r.dispatch_ns < start) {
      before.push_back(&r);
    } else if (r.last_byte_ns > end) {
      after.push_back(&r);
    } else {
      inside.push_back(r);
    }
    const double per_event = tokens_per_event(r);
    for (const auto& e : r.text_events) {
      tokens += e.ns >= start && e.ns <= end ? per_event : 0;
    }
    finished_inside += r.ok() && r.last_byte_ns >= start && r.last_byte_ns <= end ? 1 : 0;
    if (r.usage && r.dispatch_ns >= start && r.dispatch_ns <= end) {
      prompt_tokens += r.usage->prompt_tokens;
    }
  }
  if (inside.empty()) {
    return std::nullopt;
  }
  steady.start_s = static_cast<double>(start - origin) / 1e9;
  steady.end_s = static_cast<double>(end - origin) / 1e9;
  const double window_s = steady.end_s - steady.start_s;
  steady.summary = summarize_run(inside);
  steady.summary.duration_s = window_s;
  steady.summary.requests_per_s = static_cast<double>(finished_inside) / window_s;
  steady.summary.output_tokens_per_s = tokens / window_s;
  steady.summary.total_tokens_per_s =
      steady.summary.output_tokens_per_s + static_cast<double>(prompt_tokens) / window_s;
  double area = 0;
  level = 0;
  std::int64_t at = start;
  for (const auto& [t, delta] : steps) {
    if (t > at && at < end) {
      area += static_cast<double>(level) * static_cast<double>(std::min(t, end) - at);
      at = std::min(t, end);
    }
    level += delta;
  }
  steady.mean_in_flight = area / static_cast<double>(end - start);
  std::int64_t run_end = end;
  for (const auto* r : after) {
    run_end = std::max(run_end, r->last_byte_ns);
  }
  steady.ramp_up = phase(before, origin, start);
  steady.drain = phase(after, end, run_end);
  return steady;
}

}  // namespace infergate::bench
