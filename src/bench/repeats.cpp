#include "bench/repeats.hpp"

#include <fmt/format.h>
#include <boost/json/array.hpp>

#include <array>
#include <cmath>
#include <functional>
#include <numeric>

namespace infergate::bench {

namespace json = boost::json;

double t_quantile_95(std::size_t df) {
  static constexpr std::array<double, 30> kTable{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                                 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                                 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) {
    return 0;
  }
  if (df <= kTable.size()) {
    return kTable[df - 1];
  }
  // Beyond 30 the quantile approaches the normal's 1.960 as 1.960 + 2.4/df (within 0.002).
  return 1.960 + 2.4 / static_cast<double>(df);
}

Spread spread(std::vector<double> values) {
  Spread s;
  s.count = values.size();
  if (values.empty()) {
    return s;
  }
  const auto n = static_cast<double>(values.size());
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  if (values.size() > 1) {
    double squares = 0;
    for (double v : values) {
      squares += (v - s.mean) * (v - s.mean);
    }
    s.sd = std::sqrt(squares / (n - 1));
  }
  s.cv = s.mean != 0 ? s.sd / std::abs(s.mean) : 0;
  const double half = t_quantile_95(values.size() - 1) * s.sd / std::sqrt(n);
  s.ci95_low = s.mean - half;
  s.ci95_high = s.mean + half;
  s.values = std::move(values);
  return s;
}

RepeatedFigures repeated_figures(const std::vector<BenchSummary>& runs, const std::vector<double>& steady_rates,
                                 bool prompts) {
  struct Figure {
    std::string name;
    std::function<double(std::size_t)> of;
  };
  std::vector<Figure> figures;
  if (prompts) {
    figures = {
        {"input_tokens_per_s", [&](std::size_t i) { return input_token_rate(runs[i]); }},
        {"steady_input_tokens_per_s", [&](std::size_t i) { return steady_rates[i]; }},
    };
  } else {
    figures = {
        {"output_tokens_per_s", [&](std::size_t i) { return runs[i].output_tokens_per_s; }},
        {"steady_output_tokens_per_s", [&](std::size_t i) { return steady_rates[i]; }},
        {"total_tokens_per_s", [&](std::size_t i) { return runs[i].total_tokens_per_s; }},
    };
  }
  figures.push_back({"requests_per_s", [&](std::size_t i) { return runs[i].requests_per_s; }});
  // Each latency's p50 and p99, then the percentiles asked with --percentiles (every run was
  // asked the same ones).
  const std::vector<Quantile> more = runs.empty() ? std::vector<Quantile>{} : runs.front().ttft_ms.more;
  auto latency = [&](const char* metric, Stat BenchSummary::*stat) {
    figures.push_back({fmt::format("{}_p50", metric), [&runs, stat](std::size_t i) { return (runs[i].*stat).p50; }});
    figures.push_back({fmt::format("{}_p99", metric), [&runs, stat](std::size_t i) { return (runs[i].*stat).p99; }});
    for (const Quantile& q : more) {
      figures.push_back({fmt::format("{}_{}", metric, percentile_key(q.p)),
                         [&runs, stat, p = q.p](std::size_t i) { return (runs[i].*stat).at(p).value_or(0); }});
    }
  };
  latency("ttft_ms", &BenchSummary::ttft_ms);
  if (!prompts) {
    latency("tpot_ms", &BenchSummary::tpot_ms);
    figures.push_back({"itl_ms_p50", [&](std::size_t i) { return runs[i].itl_ms.p50; }});
  }
  latency("e2e_ms", &BenchSummary::e2e_ms);
  figures.push_back({"failed", [&](std::size_t i) { return static_cast<double>(runs[i].failed); }});
  RepeatedFigures out;
  out.names.reserve(figures.size());
  out.spreads.reserve(figures.size());
  for (const auto& f : figures) {
    std::vector<double> values(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
      values[i] = f.of(i);
    }
    out.names.emplace_back(f.name);
    out.spreads.push_back(spread(std::move(values)));
  }
  return out;
}

void print_repeated(std::FILE* out, const RepeatedFigures& figures) {
  if (figures.spreads.empty()) {
    return;
  }
  fmt::print(out, "\nover {} runs (95% interval: Student's t)\n", figures.spreads.front().count);
  fmt::print(out, "  {:<27} {:>11} {:>11} {:>7}   {:<25}\n", "figure", "mean", "sd", "CV", "95% interval");
  for (std::size_t i = 0; i < figures.names.size(); ++i) {
    const Spread& s = figures.spreads[i];
    fmt::print(out, "  {:<27} {:>11.3f} {:>11.3f} {:>6.1f}%   {:.3f} .. {:.3f}\n", figures.names[i], s.mean, s.sd,
               s.cv * 100, s.ci95_low, s.ci95_high);
  }
}

json::object repeated_json(const RepeatedFigures& figures) {
  json::object named;
  for (std::size_t i = 0; i < figures.names.size(); ++i) {
    const Spread& s = figures.spreads[i];
    json::array values;
    values.reserve(s.values.size());
    for (double v : s.values) {
      values.emplace_back(v);
    }
    named[figures.names[i]] = json::object{{"mean", s.mean},
                                           {"sd", s.sd},
                                           {"cv", s.cv},
                                           {"ci95", json::array{s.ci95_low, s.ci95_high}},
                                           {"values", std::move(values)}};
  }
  return json::object{{"count", figures.spreads.empty() ? 0 : figures.spreads.front().count},
                      {"figures", std::move(named)}};
}

}  // namespace infergate::bench
