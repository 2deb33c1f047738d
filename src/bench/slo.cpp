#include "bench/slo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "bench/request_metrics.hpp"

namespace infergate::bench {

namespace {

const char* metric_name(Slo::Metric m) {
  switch (m) {
    case Slo::Metric::ttft:
      return "ttft";
    case Slo::Metric::tpot:
      return "tpot";
    case Slo::Metric::itl:
      return "itl";
    case Slo::Metric::e2e:
      return "e2e";
  }
  return "?";
}

double parse_number(std::string_view text, std::string_view entry) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value <= 0) {
    throw std::invalid_argument(fmt::format("--slo {}: '{}' is not a positive number", entry, text));
  }
  return value;
}

// "500ms", "0.5s", "50" (milliseconds).
double parse_duration_ms(std::string_view text, std::string_view entry) {
  if (text.ends_with("ms")) {
    return parse_number(text.substr(0, text.size() - 2), entry);
  }
  if (text.ends_with("s")) {
    return parse_number(text.substr(0, text.size() - 1), entry) * 1000;
  }
  return parse_number(text, entry);
}

// The value of `p` in `sorted` by the nearest rank (the same rule as the summary's percentiles).
double percentile_of(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return percentile(values, p);
}

}  // namespace

std::string Slo::to_string() const {
  return fmt::format("{}_p{:g}={:g}ms", metric_name(metric), percentile, threshold_ms);
}

std::vector<Slo> parse_slos(std::string_view text) {
  std::vector<Slo> slos;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view entry = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const std::size_t eq = entry.find('=');
    const std::size_t underscore = entry.find("_p");
    if (eq == std::string_view::npos || underscore == std::string_view::npos || underscore > eq) {
      throw std::invalid_argument(
          fmt::format("--slo: '{}' is not METRIC_pN=DURATION (e.g. ttft_p99=500ms, tpot_p50=40ms)", entry));
    }
    Slo slo;
    const std::string_view name = entry.substr(0, underscore);
    if (name == "ttft") {
      slo.metric = Slo::Metric::ttft;
    } else if (name == "tpot") {
      slo.metric = Slo::Metric::tpot;
    } else if (name == "itl") {
      slo.metric = Slo::Metric::itl;
    } else if (name == "e2e") {
      slo.metric = Slo::Metric::e2e;
    } else {
      throw std::invalid_argument(fmt::format("--slo: unknown metric '{}' (ttft, tpot, itl, e2e)", name));
    }
    slo.percentile = parse_number(entry.substr(underscore + 2, eq - underscore - 2), entry);
    if (slo.percentile > 100) {
      throw std::invalid_argument(fmt::format("--slo {}: the percentile must be at most 100", entry));
    }
    slo.threshold_ms = parse_duration_ms(entry.substr(eq + 1), entry);
    slos.push_back(slo);
  }
  if (slos.empty()) {
    throw std::invalid_argument("--slo needs at least one METRIC_pN=DURATION");
  }
  return slos;
}

Goodput measure_goodput(const std::vector<RequestRecord>& records, const BenchSummary& summary,
                        const std::vector<Slo>& slos) {
  Goodput g;
  std::int64_t good_tokens = 0;
  std::int64_t good_prompt_tokens = 0;
  std::vector<std::vector<double>> values(slos.size());
  std::vector<double> itl;
  for (const auto& r : records) {
    if (!r.ok()) {
      continue;
    }
    itl.clear();
    const RequestMetrics m = measure_request(r, itl);
    bool good = true;
    for (std::size_t i = 0; i < slos.size(); ++i) {
      const Slo& slo = slos[i];
      std::vector<double> observed;
      switch (slo.metric) {
        case Slo::Metric::ttft:
          observed.push_back(m.ttft_ms);
          break;
        case Slo::Metric::tpot:
          if (m.tpot_ms) {
            observed.push_back(*m.tpot_ms);
          }
          break;
        case Slo::Metric::itl:
          observed = itl;
          break;
        case Slo::Metric::e2e:
          observed.push_back(m.e2e_ms);
          break;
      }
      for (double v : observed) {
        good = good && v <= slo.threshold_ms;
        values[i].push_back(v);
      }
    }
    if (good) {
      ++g.good;
      good_tokens += m.output_tokens;
      good_prompt_tokens += r.usage ? r.usage->prompt_tokens : 0;
    }
  }
  const std::uint64_t total = summary.completed + summary.failed;
  g.good_share = total > 0 ? static_cast<double>(g.good) / static_cast<double>(total) : 0;
  if (summary.duration_s > 0) {
    g.requests_per_s = static_cast<double>(g.good) / summary.duration_s;
    g.output_tokens_per_s = static_cast<double>(good_tokens) / summary.duration_s;
    g.input_tokens_per_s = static_cast<double>(good_prompt_tokens) / summary.duration_s;
  }
  for (std::size_t i = 0; i < slos.size(); ++i) {
    const Slo& slo = slos[i];
    // Failed requests count against every SLO: as if they had missed it.
    const double failed_share = total > 0 ? static_cast<double>(summary.failed) / static_cast<double>(total) : 0;
    if (failed_share * 100 > 100 - slo.percentile) {
      g.met = false;
      g.broken.push_back(fmt::format("{}: {:.1f}% of requests failed", slo.to_string(), failed_share * 100));
      continue;
    }
    if (values[i].empty()) {
      g.met = false;
      g.broken.push_back(fmt::format("{}: nothing measured (one-token answers have no TPOT)", slo.to_string()));
      continue;
    }
    const double observed = percentile_of(values[i], slo.percentile);
    if (observed > slo.threshold_ms) {
      g.met = false;
      g.broken.push_back(fmt::format("{}_p{:g} {:.1f}ms > {:g}ms", metric_name(slo.metric), slo.percentile, observed,
                                     slo.threshold_ms));
    }
  }
  return g;
}

}  // namespace infergate::bench
