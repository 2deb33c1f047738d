#include "bench/sweep_report.hpp"

#include <fmt/format.h>
#include <boost/json/array.hpp>

#include "bench/summary_json.hpp"

namespace infergate::bench {

namespace {

const char* kind_name(const SweepSpec& spec) {
  return spec.kind == SweepSpec::Kind::rate ? "rate" : "concurrency";
}

}  // namespace

void print_goodput(std::FILE* out, const Goodput& g, const std::vector<Slo>& slos) {
  std::vector<std::string> names;
  for (const Slo& slo : slos) {
    names.push_back(slo.to_string());
  }
  fmt::print(out, "  goodput       {:.2f} req/s   {:.1f} output tok/s   {:.1f}% of requests met {}\n", g.requests_per_s,
             g.output_tokens_per_s, g.good_share * 100, fmt::join(names, ", "));
  if (g.met) {
    fmt::print(out, "  SLOs          met\n");
  } else {
    fmt::print(out, "  SLOs          broken: {}\n", fmt::join(g.broken, "; "));
  }
}

void print_sweep_table(std::FILE* out, const SweepSpec& spec, const std::vector<SweepPoint>& points,
                       const std::optional<Knee>& knee, const KneeRule& rule) {
  const bool slo = !points.empty() && points.front().goodput.has_value();
  fmt::print(out, "\nsweep over {}\n", kind_name(spec));
  fmt::print(out, "  {:>11} {:>9} {:>11} {:>9} {:>9} {:>9} {:>9} {:>7}{}\n", kind_name(spec), "req/s", "out tok/s",
             "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "failed", slo ? "   goodput   SLOs" : "");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    const BenchSummary& s = p.summary;
    std::string goodput;
    if (p.goodput) {
      goodput = fmt::format(" {:>9.2f}   {}", p.goodput->requests_per_s, p.goodput->met ? "met" : "broken");
    }
    fmt::print(out, "  {:>11g} {:>9.2f} {:>11.1f} {:>9.1f} {:>9.1f} {:>9.2f} {:>9.2f} {:>7}{}{}\n", p.level,
               s.requests_per_s, s.output_tokens_per_s, s.ttft_ms.p50, s.ttft_ms.p99, s.tpot_ms.p50, s.tpot_ms.p99,
               s.failed, goodput, knee && knee->index == i ? "   <- knee" : "");
  }
  if (knee) {
    fmt::print(out, "  knee at {} {:g} ({})\n", kind_name(spec), points[knee->index].level, knee->reason);
  } else {
    fmt::print(out, "  no knee: throughput was still rising at the highest load measured\n");
  }
  fmt::print(out, "  ({})\n", rule.describe());
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
          {"met", g.met},
          {"broken", std::move(broken)}};
}

boost::json::object sweep_json(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                               const std::optional<Knee>& knee, const KneeRule& rule, const std::vector<Slo>& slos) {
  boost::json::array array;
  for (const SweepPoint& p : points) {
    boost::json::object point{{"level", p.level}, {"summary", summary_json(p.summary)}};
    point["goodput"] = p.goodput ? boost::json::value(goodput_json(*p.goodput, slos)) : boost::json::value(nullptr);
    array.push_back(std::move(point));
  }
  boost::json::object out{{"kind", kind_name(spec)}, {"points", std::move(array)}, {"knee_rule", rule.describe()}};
  if (knee) {
    out["knee"] = boost::json::object{{"level", points[knee->index].level}, {"reason", knee->reason}};
  } else {
    out["knee"] = nullptr;
  }
  return out;
}

}  // namespace infergate::bench
