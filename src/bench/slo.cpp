#include "bench/slo.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/json/array.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
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

// Whether each SLO was met: `observed(i)` is the value of SLO i's percentile over the requests
// that succeeded, or nothing when none gave that metric. Failed requests count against every SLO,
// as if they had missed it.
template <typename Observed>
void judge(Goodput& g, const BenchSummary& summary, const std::vector<Slo>& slos, Observed observed) {
  const std::uint64_t total = summary.completed + summary.failed;
  const double failed_share = total > 0 ? static_cast<double>(summary.failed) / static_cast<double>(total) : 0;
  for (std::size_t i = 0; i < slos.size(); ++i) {
    const Slo& slo = slos[i];
    if (failed_share * 100 > 100 - slo.percentile) {
      g.met = false;
      g.broken.push_back(fmt::format("{}: {:.1f}% of requests failed", slo.to_string(), failed_share * 100));
      continue;
    }
    const std::optional<double> value = observed(i);
    if (!value) {
      g.met = false;
      g.broken.push_back(fmt::format("{}: nothing measured (one-token answers have no TPOT)", slo.to_string()));
      continue;
    }
    if (*value > slo.threshold_ms) {
      g.met = false;
      g.broken.push_back(
          fmt::format("{}_p{:g} {:.1f}ms > {:g}ms", metric_name(slo.metric), slo.percentile, *value, slo.threshold_ms));
    }
  }
}

const LogHistogram& histogram_of(const BenchSummary& s, Slo::Metric metric) {
  switch (metric) {
    case Slo::Metric::ttft:
      return s.ttft_hist;
    case Slo::Metric::tpot:
      return s.tpot_hist;
    case Slo::Metric::itl:
      return s.itl_hist;
    case Slo::Metric::e2e:
      return s.e2e_hist;
  }
  return s.ttft_hist;
}

double number_in(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_number()) {
    throw std::runtime_error(fmt::format("a goodput's '{}' is missing or not a number", key));
  }
  return v->to_number<double>();
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
                        const std::vector<Slo>& slos, std::optional<std::uint32_t> model) {
  Goodput g;
  std::int64_t good_tokens = 0;
  std::int64_t good_prompt_tokens = 0;
  std::vector<std::vector<double>> values(slos.size());
  std::vector<double> itl;
  for (const auto& r : records) {
    if (!r.ok() || (model && r.model != *model)) {
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
  judge(g, summary, slos, [&](std::size_t i) -> std::optional<double> {
    if (values[i].empty()) {
      return std::nullopt;
    }
    return percentile_of(values[i], slos[i].percentile);
  });
  return g;
}

std::string slo_list(const std::vector<Slo>& slos, std::string_view separator) {
  std::string out;
  for (const Slo& slo : slos) {
    out += (out.empty() ? "" : std::string(separator)) + slo.to_string();
  }
  return out;
}

std::vector<Slo> goodput_slos(const boost::json::object& goodput) {
  const auto* slos = goodput.if_contains("slos");
  if (slos == nullptr || !slos->is_array()) {
    throw std::runtime_error("a goodput's 'slos' is missing or not an array");
  }
  std::vector<std::string> entries;
  for (const auto& slo : slos->get_array()) {
    if (!slo.is_string()) {
      throw std::runtime_error("a goodput's 'slos' must be strings");
    }
    entries.emplace_back(slo.get_string());
  }
  try {
    return parse_slos(fmt::format("{}", fmt::join(entries, ",")));
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

Goodput goodput_from_json(const boost::json::object& o) {
  Goodput g;
  const double good = number_in(o, "good_requests");
  if (!(good >= 0 && good < 0x1p63) || good != std::floor(good)) {
    throw std::runtime_error("a goodput's 'good_requests' must be a whole number");
  }
  g.good = static_cast<std::uint64_t>(good);
  g.good_share = number_in(o, "good_share");
  g.requests_per_s = number_in(o, "requests_per_s");
  g.output_tokens_per_s = number_in(o, "output_tokens_per_s");
  g.input_tokens_per_s = number_in(o, "input_tokens_per_s");
  const auto* met = o.if_contains("met");
  const auto* broken = o.if_contains("broken");
  if (met == nullptr || !met->is_bool() || broken == nullptr || !broken->is_array()) {
    throw std::runtime_error("a goodput needs 'met' (true or false) and 'broken' (an array)");
  }
  g.met = met->get_bool();
  for (const auto& b : broken->get_array()) {
    if (!b.is_string()) {
      throw std::runtime_error("a goodput's 'broken' must be strings");
    }
    g.broken.emplace_back(b.get_string());
  }
  return g;
}

Goodput pool_goodputs(std::span<const Goodput> parts, const BenchSummary& pooled, const std::vector<Slo>& slos) {
  Goodput g;
  for (const Goodput& part : parts) {
    g.good += part.good;
    g.requests_per_s += part.requests_per_s;
    g.output_tokens_per_s += part.output_tokens_per_s;
    g.input_tokens_per_s += part.input_tokens_per_s;
  }
  const std::uint64_t total = pooled.completed + pooled.failed;
  g.good_share = total > 0 ? static_cast<double>(g.good) / static_cast<double>(total) : 0;
  judge(g, pooled, slos, [&](std::size_t i) -> std::optional<double> {
    const LogHistogram& h = histogram_of(pooled, slos[i].metric);
    if (h.empty()) {
      return std::nullopt;
    }
    return h.percentile(slos[i].percentile);
  });
  return g;
}

boost::json::object goodput_json(const Goodput& g, const std::vector<Slo>& slos) {
  boost::json::array objectives;
  for (const Slo& slo : slos) {
    objectives.emplace_back(slo.to_string());
  }
  boost::json::array broken;
  for (const auto& b : g.broken) {
    broken.emplace_back(b);
  }
  return {{"slos", std::move(objectives)},
          {"good_requests", g.good},
          {"good_share", g.good_share},
          {"requests_per_s", g.requests_per_s},
          {"output_tokens_per_s", g.output_tokens_per_s},
          {"input_tokens_per_s", g.input_tokens_per_s},
          {"met", g.met},
          {"broken", std::move(broken)}};
}

}  // namespace infergate::bench
