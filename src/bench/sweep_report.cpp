#include "bench/sweep_report.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <boost/json/array.hpp>

#include "bench/summary_json.hpp"
#include "bench/timeline_report.hpp"

namespace infergate::bench {

void print_goodput(std::FILE* out, const Goodput& g, const std::vector<Slo>& slos, bool prompts) {
  fmt::print(out, "  goodput       {:.2f} req/s   {:.1f} {} tok/s   {:.1f}% of requests met {}\n", g.requests_per_s,
             prompts ? g.input_tokens_per_s : g.output_tokens_per_s, prompts ? "input" : "output", g.good_share * 100,
             slo_list(slos, ", "));
  if (g.met) {
    fmt::print(out, "  SLOs          met\n");
  } else {
    fmt::print(out, "  SLOs          broken: {}\n", fmt::join(g.broken, "; "));
  }
}

namespace {

// One row per level; `marked` gets `marker` at its end.
void print_levels(std::FILE* out, const char* kind, const std::vector<SweepPoint>& points,
                  std::optional<std::size_t> marked, const char* marker) {
  const bool slo = !points.empty() && points.front().goodput.has_value();
  const bool cost = !points.empty() && points.front().cost.has_value();
  // Embeddings generate nothing: their rate is the input tokens taken in, and there is no TPOT.
  const bool prompts = prompt_only(points, &SweepPoint::summary);
  // --percentiles past p99 follow each latency's p99 (every level was asked the same ones).
  const std::vector<Quantile> more = points.empty() ? std::vector<Quantile>{} : points.front().summary.ttft_ms.more;
  auto heads = [&](const char* metric) {
    std::string text = fmt::format(" {:>9} {:>9}", fmt::format("{} p50", metric), fmt::format("{} p99", metric));
    for (const Quantile& q : more) {
      text += fmt::format(" {:>11}", fmt::format("{} {}", metric, percentile_key(q.p)));
    }
    return text;
  };
  auto cells = [&](const Stat& stat, int precision) {
    std::string text = fmt::format(" {:>9.{}f} {:>9.{}f}", stat.p50, precision, stat.p99, precision);
    for (const Quantile& q : more) {
      text += fmt::format(" {:>11.{}f}", stat.at(q.p).value_or(0), precision);
    }
    return text;
  };
  fmt::print(out, "  {:>11} {:>9} {:>11}{}{} {:>7}{}{}\n", kind, "req/s", prompts ? "in tok/s" : "out tok/s",
             heads("TTFT"), prompts ? "" : heads("TPOT"), "failed", cost ? (prompts ? "   $/M in" : "  $/M out") : "",
             slo ? "   goodput   SLOs" : "");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    const BenchSummary& s = p.summary;
    std::string goodput;
    if (p.goodput) {
      goodput = fmt::format(" {:>9.2f}   {}", p.goodput->requests_per_s, p.goodput->met ? "met" : "broken");
    }
    std::string dollars;
    if (p.cost) {
      const auto per_million = headline_per_million(*p.cost);
      dollars = per_million ? fmt::format(" {:>8.4f}", *per_million) : fmt::format(" {:>8}", "-");
    }
    fmt::print(out, "  {:>11g} {:>9.2f} {:>11.1f}{}{} {:>7}{}{}{}{}\n", p.level, s.requests_per_s,
               measured_rate(s, prompts), cells(s.ttft_ms, 1), prompts ? "" : cells(s.tpot_ms, 2), s.failed, dollars,
               goodput, marked == i ? marker : "", s.client && s.client->bound ? "   (client-bound)" : "");
  }
}

// With --server-metrics, a line a level: the server's queue, batch and KV cache at their peaks.
void print_server_by_level(std::FILE* out, const char* kind, const std::vector<SweepPoint>& points) {
  for (const SweepPoint& p : points) {
    if (p.server) {
      fmt::print(out, "  server at {} {:g}: {}\n", kind, p.level, describe_server_peaks(*p.server, p.server_error));
    }
  }
}

// Model m's levels of a mixed-model load: its own figures (and goodput) at each level.
std::vector<SweepPoint> model_levels(const std::vector<SweepPoint>& points, std::size_t m) {
  std::vector<SweepPoint> own;
  for (const SweepPoint& p : points) {
    SweepPoint level;
    level.level = p.level;
    if (m < p.by_model.size()) {
      level.summary = p.by_model[m].second;
    }
    if (m < p.model_goodputs.size()) {
      level.goodput = p.model_goodputs[m];
    }
    own.push_back(std::move(level));
  }
  return own;
}

std::size_t model_count(const std::vector<SweepPoint>& points) {
  return points.empty() ? 0 : points.front().by_model.size();
}

// A mixed-model load's levels again, one model at a time: how each model's latency climbs; with
// `rule` (a sweep's), each model's own knee is marked and named.
void print_levels_by_model(std::FILE* out, const char* kind, const std::vector<SweepPoint>& points,
                           const KneeRule* rule) {
  for (std::size_t m = 0; m < model_count(points); ++m) {
    const std::vector<SweepPoint> own = model_levels(points, m);
    fmt::print(out, "  by model: {}\n", points.front().by_model[m].first);
    const std::optional<Knee> knee = rule != nullptr ? find_knee(own, *rule) : std::nullopt;
    print_levels(out, kind, own, knee ? std::optional(knee->index) : std::nullopt, "   <- knee");
    if (rule != nullptr) {
      fmt::print(out, "{}\n",
                 knee ? fmt::format("  its knee at {} {:g} ({})", kind, own[knee->index].level, knee->reason)
                      : std::string("  no knee of its own"));
    }
  }
}

}  // namespace

void print_sweep_table(std::FILE* out, const SweepSpec& spec, const std::vector<SweepPoint>& points,
                       const std::optional<Knee>& knee, const KneeRule& rule) {
  fmt::print(out, "\nsweep over {}\n", kind_name(spec.kind));
  print_levels(out, kind_name(spec.kind), points, knee ? std::optional(knee->index) : std::nullopt, "   <- knee");
  if (knee) {
    fmt::print(out, "  knee at {} {:g} ({})\n", kind_name(spec.kind), points[knee->index].level, knee->reason);
  } else {
    fmt::print(out, "  no knee: throughput was still rising at the highest load measured\n");
  }
  fmt::print(out, "  ({})\n", rule.describe(prompt_only(points, &SweepPoint::summary)));
  print_server_by_level(out, kind_name(spec.kind), points);
  print_levels_by_model(out, kind_name(spec.kind), points, &rule);
}

void print_max_load(std::FILE* out, const std::vector<SweepPoint>& points, std::optional<double> passing,
                    std::optional<double> failing, SweepSpec::Kind kind) {
  std::optional<std::size_t> marked;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (passing && points[i].level == *passing) {
      marked = i;
    }
  }
  const bool speed = kind == SweepSpec::Kind::speed;
  const char* unit = speed ? "x speed" : " req/s";
  fmt::print(out, "\nsearch for the highest {} meeting every SLO\n", speed ? "replay speed" : "rate");
  print_levels(out, kind_name(kind), points, marked, "   <- max load");
  if (passing && failing) {
    fmt::print(out, "  max load: {:g}{} meets every SLO; {:g}{} does not\n", *passing, unit, *failing, unit);
  } else if (passing) {
    fmt::print(out, "  max load: at least {:g}{} (every {} tried met the SLOs)\n", *passing, unit, kind_name(kind));
  } else {
    fmt::print(out, "  max load: none found: even {:g}{} breaks an SLO\n", failing.value_or(0), unit);
  }
  print_server_by_level(out, kind_name(kind), points);
  print_levels_by_model(out, kind_name(kind), points, nullptr);
}

namespace {

boost::json::array points_json(const std::vector<SweepPoint>& points, const std::vector<Slo>& slos,
                               const Pricing& pricing) {
  boost::json::array array;
  for (const SweepPoint& p : points) {
    boost::json::object point{{"level", p.level}, {"summary", summary_json(p.summary)}};
    point["goodput"] = p.goodput ? boost::json::value(goodput_json(*p.goodput, slos)) : boost::json::value(nullptr);
    point["steady_state"] = p.steady ? boost::json::value(steady_state_json(*p.steady)) : boost::json::value(nullptr);
    if (p.cost) {
      point["cost"] = cost_json(pricing, *p.cost);
    }
    if (!p.by_model.empty()) {
      point["by_model"] = model_breakdown_json(p.by_model, p.model_goodputs, slos);
    }
    if (p.server) {
      point["server"] = server_series_json(*p.server, p.started_ns);
    }
    array.push_back(std::move(point));
  }
  return array;
}

boost::json::value optional_json(std::optional<double> v) {
  return v ? boost::json::value(*v) : boost::json::value(nullptr);
}

}  // namespace

boost::json::object max_load_json(const std::vector<SweepPoint>& points, std::optional<double> passing,
                                  std::optional<double> failing, const std::vector<Slo>& slos, const Pricing& pricing,
                                  SweepSpec::Kind kind) {
  const std::string name = kind_name(kind);
  return {{"kind", name},
          {name, optional_json(passing)},
          {"failing_" + name, optional_json(failing)},
          {"points", points_json(points, slos, pricing)}};
}

boost::json::object sweep_json(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                               const std::optional<Knee>& knee, const KneeRule& rule, const std::vector<Slo>& slos,
                               const Pricing& pricing) {
  boost::json::object out{{"kind", kind_name(spec.kind)},
                          {"points", points_json(points, slos, pricing)},
                          {"knee_rule", rule.describe(prompt_only(points, &SweepPoint::summary))}};
  auto knee_json = [&](const std::vector<SweepPoint>& levels, const std::optional<Knee>& found) -> boost::json::value {
    if (!found) {
      return nullptr;
    }
    return boost::json::object{{"level", levels[found->index].level}, {"reason", found->reason}};
  };
  out["knee"] = knee_json(points, knee);
  if (model_count(points) > 0) {
    boost::json::object by_model;
    for (std::size_t m = 0; m < model_count(points); ++m) {
      const std::vector<SweepPoint> own = model_levels(points, m);
      by_model[points.front().by_model[m].first] = knee_json(own, find_knee(own, rule));
    }
    out["knee_by_model"] = std::move(by_model);
  }
  return out;
}

}  // namespace infergate::bench
