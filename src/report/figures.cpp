#include "report/figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "bench/repeats.hpp"
#include "bench/summary.hpp"

namespace infergate::report {

namespace {

// The interval of the p-th percentile from order statistics of `hist` (n samples), widened by the
// histogram's half-bucket and to the exact value.
std::optional<Interval> percentile_interval(const bench::LogHistogram& hist, double p, double value) {
  const auto n = static_cast<double>(hist.count());
  if (n < 10) {
    return std::nullopt;
  }
  const double q = p / 100.0;
  const double spread = 1.96 * std::sqrt(n * q * (1 - q));
  const double low_rank = std::max(1.0, std::floor(n * q - spread));
  const double high_rank = std::min(n, std::ceil(n * q + spread));
  const double half_bucket = std::sqrt(bench::LogHistogram::kGrowth);
  return Interval{std::min(value, hist.percentile(100.0 * low_rank / n) / half_bucket),
                  std::max(value, hist.percentile(100.0 * high_rank / n) * half_bucket)};
}

// A repeated run's figure is the mean over its runs, with their Student's t interval: the pooled
// requests' percentile is another statistic, which that interval need not hold. A result saved
// without the figure keeps the pooled value, with no interval.
void take_runs_figure(const RunDocument& d, std::string_view name, Figure& figure) {
  const auto* found = d.runs_figures.if_contains(name);
  if (found == nullptr || !found->is_object()) {
    return;
  }
  const auto* mean = found->get_object().if_contains("mean");
  const auto* ci = found->get_object().if_contains("ci95");
  if (mean == nullptr || !mean->is_number() || ci == nullptr || !ci->is_array() || ci->get_array().size() != 2 ||
      !ci->get_array()[0].is_number() || !ci->get_array()[1].is_number()) {
    return;
  }
  figure.value = mean->to_number<double>();
  figure.interval = Interval{ci->get_array()[0].to_number<double>(), ci->get_array()[1].to_number<double>()};
}

// Per-second rates (`per_second`: output or input tokens/s of d's series) inside the steady window
// of a single run.
std::optional<Interval> rate_interval(const RunDocument& d, double value, std::vector<double> Series::*per_second) {
  const auto* steady = d.raw.if_contains("steady_state");
  if (!d.series || steady == nullptr || !steady->is_object()) {
    return std::nullopt;
  }
  const std::vector<double>& rate = *d.series.*per_second;
  if (rate.size() != d.series->t_s.size()) {
    return std::nullopt;
  }
  const auto* start_s = steady->get_object().if_contains("start_s");
  const auto* end_s = steady->get_object().if_contains("end_s");
  if (start_s == nullptr || !start_s->is_number() || end_s == nullptr || !end_s->is_number()) {
    return std::nullopt;
  }
  const double start = start_s->to_number<double>();
  const double end = end_s->to_number<double>();
  std::vector<double> rates;
  for (std::size_t i = 0; i < d.series->t_s.size(); ++i) {
    if (d.series->t_s[i] >= start && d.series->t_s[i] + 1.0 <= end) {
      rates.push_back(rate[i]);
    }
  }
  if (rates.size() < 3) {
    return std::nullopt;
  }
  const bench::Spread s = bench::spread(rates);
  const double half = s.ci95_high - s.mean;
  return Interval{value - half, value + half};
}

}  // namespace

std::vector<Figure> headline_figures(const RunDocument& d, std::span<const double> more, bool prompts) {
  const bench::BenchSummary& s = d.summary;
  const bool repeated = d.kind == RunDocument::Kind::runs;
  const bool single = d.kind == RunDocument::Kind::single;
  std::vector<Figure> out;
  if (prompts) {
    const double rate = d.steady ? d.steady->input_tokens_per_s : bench::input_token_rate(s);
    out.push_back({"input_tokens_per_s", d.steady ? "input tok/s (steady)" : "input tok/s", true, rate,
                   single ? rate_interval(d, rate, &Series::input_tokens_per_s) : std::nullopt});
    if (repeated) {
      take_runs_figure(d, d.steady ? "steady_input_tokens_per_s" : "input_tokens_per_s", out.back());
    }
  } else {
    const double rate = d.steady ? d.steady->output_tokens_per_s : s.output_tokens_per_s;
    out.push_back({"output_tokens_per_s", d.steady ? "output tok/s (steady)" : "output tok/s", true, rate,
                   single ? rate_interval(d, rate, &Series::output_tokens_per_s) : std::nullopt});
    if (repeated) {
      take_runs_figure(d, d.steady ? "steady_output_tokens_per_s" : "output_tokens_per_s", out.back());
    }
  }
  out.push_back({"requests_per_s", "requests/s", true, s.requests_per_s, std::nullopt});
  if (repeated) {
    take_runs_figure(d, "requests_per_s", out.back());
  }
  auto latency = [&](const char* metric, const char* title, const bench::Stat& stat, const bench::LogHistogram& hist,
                     double p) {
    const std::string key = bench::percentile_key(p);
    const std::string name = fmt::format("{}_{}", metric, key);
    const double value = stat.at(p).value_or(0);
    out.push_back({name, fmt::format("{} {} (ms)", title, key), false, value,
                   repeated ? std::nullopt : percentile_interval(hist, p, value)});
    if (repeated) {
      take_runs_figure(d, name, out.back());
    }
  };
  auto tails = [&](const char* metric, const char* title, const bench::Stat& stat, const bench::LogHistogram& hist) {
    for (const double p : {50.0, 99.0}) {
      latency(metric, title, stat, hist, p);
    }
    for (const double p : more) {
      latency(metric, title, stat, hist, p);
    }
  };
  tails("ttft_ms", "TTFT", s.ttft_ms, s.ttft_hist);
  if (!prompts) {
    tails("tpot_ms", "TPOT", s.tpot_ms, s.tpot_hist);
    latency("itl_ms", "ITL", s.itl_ms, s.itl_hist, 50);
  }
  tails("e2e_ms", "E2E", s.e2e_ms, s.e2e_hist);
  const double all = static_cast<double>(s.completed + s.failed);
  out.push_back(
      {"failed_share", "failed (%)", false, all > 0 ? 100.0 * static_cast<double>(s.failed) / all : 0, std::nullopt});
  return out;
}

std::vector<double> shared_percentiles(const std::vector<RunDocument>& documents) {
  std::vector<double> shared;
  if (documents.empty()) {
    return shared;
  }
  for (const bench::Quantile& q : documents.front().summary.ttft_ms.more) {
    if (std::all_of(documents.begin(), documents.end(),
                    [&](const RunDocument& d) { return d.summary.ttft_ms.at(q.p).has_value(); })) {
      shared.push_back(q.p);
    }
  }
  return shared;
}

Comparison compare(const std::vector<RunDocument>& documents) {
  Comparison c;
  const std::vector<double> more = shared_percentiles(documents);
  const bool prompts = bench::prompt_only(documents, &RunDocument::summary);
  for (const auto& d : documents) {
    c.labels.push_back(d.label);
    c.figures.push_back(headline_figures(d, more, prompts));
  }
  // Goodput and cost, where every document was measured with them (--slo; --price, --hourly-cost).
  const std::pair<Figure, std::optional<double> Extras::*> measured[] = {
      {{"goodput_requests_per_s", "goodput req/s", true, 0, std::nullopt}, &Extras::goodput_requests_per_s},
      {{"usd_per_million_tokens", prompts ? "$ per M input tokens" : "$ per M output tokens", false, 0, std::nullopt},
       &Extras::usd_per_million_tokens}};
  for (const auto& [figure, of] : measured) {
    std::vector<Figure> values;
    values.reserve(documents.size());
    for (const auto& d : documents) {
      if (!(d.extras.*of)) {
        break;
      }
      Figure own = figure;
      own.value = *(d.extras.*of);
      take_runs_figure(d, figure.name, own);  // repeated runs: the mean over them, with its interval
      values.push_back(own);
    }
    if (!documents.empty() && values.size() == documents.size()) {
      for (std::size_t i = 0; i < values.size(); ++i) {
        c.figures[i].push_back(values[i]);
      }
    }
  }
  for (std::size_t i = 0; i < c.figures.size(); ++i) {
    std::vector<std::optional<double>> ratios;
    std::vector<bool> differs;
    for (std::size_t f = 0; f < c.figures[i].size(); ++f) {
      const Figure& base = c.figures.front()[f];
      const Figure& mine = c.figures[i][f];
      ratios.push_back(i > 0 && base.value != 0 ? std::optional(mine.value / base.value) : std::nullopt);
      differs.push_back(i > 0 && base.interval && mine.interval &&
                        (mine.interval->high < base.interval->low || mine.interval->low > base.interval->high));
    }
    c.ratio.push_back(std::move(ratios));
    c.differs.push_back(std::move(differs));
  }
  for (const auto& d : documents) {
    const auto* forced = d.config.if_contains("ignore_eos");
    if (d.summary.other_output_lengths > 0 && forced != nullptr && forced->is_bool() && forced->get_bool()) {
      c.cautions.push_back(fmt::format(
          "{}: {} of {} answers were not the output length asked (the server does not honour ignore_eos), so its "
          "E2E and throughput are not for the lengths asked",
          d.label, d.summary.other_output_lengths, d.summary.completed));
    }
  }
  return c;
}

}  // namespace infergate::report
