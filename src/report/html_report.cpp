#include "report/html_report.hpp"

#include <fmt/format.h>
#include <boost/json/serialize.hpp>

#include <cmath>

#include "bench/roofline_context.hpp"
#include "bench/summary.hpp"
#include "report/figures.hpp"
#include "report/level_columns.hpp"
#include "report/model_tables.hpp"
#include "report/svg_chart.hpp"
#include "report/tables.hpp"

namespace infergate::report {

namespace {

constexpr const char* kStyle = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1180px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 32px; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
tr.knee td { background: #fff4d6; }
.differs { color: #b00; font-weight: 600; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
figure.chart { margin: 0; border: 1px solid #ddd; padding: 6px; }
figcaption { max-width: 720px; color: #555; font-size: 12px; }
svg .title { font-size: 15px; font-weight: 600; }
svg .plot { fill: #fcfcfc; stroke: #999; }
svg .grid { stroke: #e4e4e4; }
svg .xtick { font-size: 11px; text-anchor: middle; fill: #444; }
svg .ytick { font-size: 11px; text-anchor: end; fill: #444; }
svg .xlabel, svg .ylabel { font-size: 12px; text-anchor: middle; fill: #222; }
svg .legend { font-size: 12px; fill: #222; }
svg .line { fill: none; stroke-width: 2; }
svg .mark { fill: none; stroke-width: 2; }
svg .marklabel { font-size: 12px; font-weight: 600; }
svg .empty { font-size: 13px; fill: #888; }
.note { color: #555; font-size: 12px; }
)";

// Sets data-drawn on each chart to the number of data marks the browser laid out with a size, so a
// headless browser can tell a drawn chart from an empty one.
constexpr const char* kDrawnCheck = R"(
document.querySelectorAll('figure.chart').forEach(function (f) {
  var n = 0;
  f.querySelectorAll('.data').forEach(function (e) { var b = e.getBBox(); if (b.width > 0 || b.height > 0) n++; });
  f.setAttribute('data-drawn', String(n));
});
)";

std::string figure(const Chart& chart, const std::string& caption) {
  return fmt::format(R"(<figure class="chart" data-chart="{}">{}<figcaption>{}</figcaption></figure>)",
                     escape_xml(chart.id), render_svg(chart), escape_xml(caption));
}

// The share of samples per bin, re-binned into about 40 logarithmic bins: the 1% buckets are too
// fine to read.
std::vector<std::pair<double, double>> distribution(const bench::LogHistogram& hist) {
  std::vector<std::pair<double, double>> points;
  const auto buckets = hist.buckets();
  if (hist.empty()) {
    return points;
  }
  double low = 0;
  double high = 0;
  for (const auto& b : buckets) {
    if (b.high > 0) {
      low = low == 0 ? b.low : std::min(low, b.low);
      high = std::max(high, b.high);
    }
  }
  if (high <= low) {
    return points;
  }
  constexpr int kBins = 40;
  const double step = std::log(high / low) / kBins;
  std::vector<double> shares(kBins, 0);
  for (const auto& b : buckets) {
    if (b.high <= 0) {
      continue;
    }
    const int bin = std::clamp(static_cast<int>(std::log(std::sqrt(b.low * b.high) / low) / step), 0, kBins - 1);
    shares[static_cast<std::size_t>(bin)] += 100.0 * static_cast<double>(b.count) / static_cast<double>(hist.count());
  }
  for (int i = 0; i < kBins; ++i) {
    points.emplace_back(low * std::exp((i + 0.5) * step), shares[static_cast<std::size_t>(i)]);
  }
  return points;
}

std::string comparison_table(const Comparison& c) {
  std::string html = "<table><tr><th>figure (95% interval)</th>";
  for (const auto& label : c.labels) {
    html += fmt::format("<th>{}</th>", escape_xml(label));
  }
  html += "</tr>";
  for (std::size_t f = 0; f < c.figures.front().size(); ++f) {
    html += fmt::format("<tr><td>{}</td>", escape_xml(c.figures.front()[f].title));
    for (std::size_t d = 0; d < c.labels.size(); ++d) {
      const Figure& fig = c.figures[d][f];
      std::string cell = format_number(fig.value);
      if (fig.interval) {
        cell += fmt::format(" <span class=\"note\">({}–{})</span>", format_number(fig.interval->low),
                            format_number(fig.interval->high));
      }
      if (d > 0 && c.ratio[d][f]) {
        cell += c.differs[d][f] ? fmt::format(" <span class=\"differs\">{:.2f}x *</span>", *c.ratio[d][f])
                                : fmt::format(" {:.2f}x", *c.ratio[d][f]);
      }
      html += "<td>" + cell + "</td>";
    }
    html += "</tr>";
  }
  html += "</table>";
  if (c.labels.size() > 1) {
    html += fmt::format(
        "<p class=\"note\">Ratios are to {}. * marks a difference larger than both runs' 95% intervals "
        "(repeated runs: Student's t over the runs; one run: order statistics for percentiles, per-second "
        "rates in the steady state for throughput).</p>",
        escape_xml(c.labels.front()));
  }
  for (const std::string& caution : c.cautions) {
    html += fmt::format("<p class=\"differs\">Warning: {}.</p>", escape_xml(caution));
  }
  return html;
}

std::string config_table(const std::vector<RunDocument>& documents) {
  std::vector<std::string> keys;
  for (const auto& d : documents) {
    for (const auto& [key, value] : d.config) {
      if (std::find(keys.begin(), keys.end(), std::string(key)) == keys.end()) {
        keys.emplace_back(key);
      }
    }
  }
  std::string html = "<table><tr><th>setting</th>";
  for (const auto& d : documents) {
    html += fmt::format("<th>{}</th>", escape_xml(d.label));
  }
  html += "</tr>";
  for (const auto& key : keys) {
    html += fmt::format("<tr><td>{}</td>", escape_xml(key));
    for (const auto& d : documents) {
      const auto* v = d.config.if_contains(key);
      std::string text = v == nullptr || v->is_null() ? "–"
                         : v->is_string()             ? std::string(v->get_string())
                                                      : boost::json::serialize(*v);
      html += fmt::format("<td>{}</td>", escape_xml(text));
    }
    html += "</tr>";
  }
  html += "<tr><td>tables and CDFs show</td>";
  for (const auto& d : documents) {
    html += fmt::format("<td>{}</td>", escape_xml(d.summary_of));
  }
  return html + "</tr></table>";
}

std::string levels_table(const RunDocument& d) {
  const LevelColumns columns = level_columns(d);
  std::string heads;
  for (const LatencyColumn& c : columns.latencies) {
    heads += fmt::format("<th>{} (ms)</th>", escape_xml(c.title));
  }
  std::string html = fmt::format(
      "<h2>{}: {} by {}</h2><table><tr><th>{}</th><th>req/s</th><th>{}</th>{}<th>failed</th><th>SLOs</th></tr>",
      escape_xml(d.label), d.kind == RunDocument::Kind::sweep ? "sweep" : "max-load search", escape_xml(d.level_kind),
      escape_xml(d.level_kind), columns.rate_title, heads);
  for (std::size_t i = 0; i < d.levels.size(); ++i) {
    const auto& s = d.levels[i].summary;
    std::string cells;
    for (const LatencyColumn& c : columns.latencies) {
      cells += fmt::format("<td>{}</td>", format_number(c.of(s)));
    }
    html += fmt::format("<tr{}><td>{:g}{}</td><td>{}</td><td>{}</td>{}<td>{}</td><td>{}</td></tr>",
                        d.knee == i ? " class=\"knee\"" : "", d.levels[i].level,
                        d.knee == i ? (d.kind == RunDocument::Kind::sweep ? " (knee)" : " (max load)") : "",
                        format_number(s.requests_per_s), format_number(columns.rate(s)), cells, s.failed,
                        d.levels[i].slo_met ? (*d.levels[i].slo_met ? "met" : "broken") : "–");
  }
  html += "</table>";
  if (!d.knee_rule.empty()) {
    html += fmt::format("<p class=\"note\">{}</p>", escape_xml(d.knee_rule));
  }
  return html;
}

// The roofline ceiling of each run that named its model and hardware, and the share measured. Runs
// that generated nothing (embeddings) are set against the prefill alone, as bench's roofline line is.
std::string roofline_table(const std::vector<RunDocument>& documents) {
  const bool prompts = bench::prompt_only(documents, &RunDocument::summary);
  std::string rows;
  for (const auto& d : documents) {
    const auto context = bench::roofline_from_json(d.config.if_contains("roofline"));
    if (!context) {
      continue;
    }
    const bench::RooflineFractions f = bench::roofline_fractions(*context, d.summary);
    auto share = [](const std::optional<double>& v, double scale, const char* unit) {
      return v ? fmt::format("{:.1f}{}", *v * scale, unit) : std::string("–");
    };
    const std::string decode =
        prompts ? ""
                : fmt::format("<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
                              format_number(context->ideal_decode_tps), share(f.stream_decode, 100, "%"),
                              context->batch, format_number(context->batch_tps), share(f.throughput, 100, "%"));
    rows += fmt::format("<tr><td>{}</td><td>{}</td>{}<td>{}</td><td>{}</td></tr>", escape_xml(d.label),
                        escape_xml(context->profile), decode, format_number(context->prefill_ms),
                        share(f.ttft_over_prefill, 1, "x"));
  }
  if (rows.empty()) {
    return "";
  }
  const char* decode_heads = prompts ? ""
                                     : "<th>one stream's decode ceiling (tok/s)</th><th>measured (1000 / TPOT "
                                       "p50)</th><th>largest batch</th><th>its output (tok/s)</th><th>measured "
                                       "throughput</th>";
  return fmt::format(
      "<h2>Against the roofline</h2><table><tr><th>run</th><th>model on hardware</th>{}<th>prefill of the mean "
      "prompt (ms)</th><th>TTFT p50 / prefill</th></tr>{}</table><p class=\"note\">Ceilings from the simulator "
      "catalog's roofline: {}prefill at the calibrated compute rate (docs/simulator.md).</p>",
      decode_heads, rows, prompts ? "" : "weights read once per decode step at peak memory bandwidth, ");
}

}  // namespace

std::string html_report(const std::vector<RunDocument>& documents) {
  std::vector<std::string> labels;
  labels.reserve(documents.size());
  for (const auto& d : documents) {
    labels.push_back(d.label);
  }
  std::string html = fmt::format(
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>infergate bench report: {}</title>"
      "<style>{}</style></head><body><h1>infergate bench report: {}</h1>",
      escape_xml(fmt::format("{}", fmt::join(labels, " vs "))), kStyle,
      escape_xml(fmt::format("{}", fmt::join(labels, " vs "))));
  html += "<h2>Headline figures</h2>" + comparison_table(compare(documents));

  // Runs that generated nothing (embeddings) are drawn by the input they take in, without the
  // TPOT and ITL charts they have no samples for.
  const bool prompts = bench::prompt_only(documents, &RunDocument::summary);
  const char* rate_unit = prompts ? "input tokens/s" : "output tokens/s";
  auto throughput = [prompts](const bench::BenchSummary& s) { return bench::measured_rate(s, prompts); };
  Chart load{"throughput-vs-load",
             prompts ? "Input throughput against load" : "Output throughput against load",
             "",
             rate_unit,
             false,
             {},
             {}};
  Chart latency{
      "latency-vs-throughput", "p99 time to first token against throughput", rate_unit, "TTFT p99 (ms)", false, {}, {}};
  Chart ttft{"ttft-cdf", "Time to first token: cumulative distribution", "TTFT (ms)", "share of requests", true, 1.0,
             {}};
  Chart tpot{"tpot-cdf", "Time per output token: cumulative distribution", "TPOT (ms)", "share of requests", true, 1.0,
             {}};
  Chart itl{"itl-histogram", "Inter-token latency: distribution", "ITL (ms)", "share of tokens (%)", true, {}, {}};
  Chart flight{"in-flight", "Requests in flight over time", "time since start (s)", "requests in flight", false, {},
               {}};
  Chart rate{"tokens-per-second",
             prompts ? "Input tokens per second over time" : "Output tokens per second over time",
             "time since start (s)",
             rate_unit,
             false,
             {},
             {}};
  Chart queue{
      "server-queue", "Server: requests waiting and running", "time since start (s)", "requests", false, {}, {}};
  Chart kv{"server-kv-cache", "Server: KV-cache use", "time since start (s)", "KV cache used (%)", false, 100.0, {}};
  std::string level_kind;
  for (const auto& d : documents) {
    if (d.series && d.series->server) {
      const ServerSeries& g = *d.series->server;
      ChartSeries waiting{d.label + " waiting", ChartSeries::Style::line, {}, std::nullopt, {}};
      ChartSeries running{d.label + " running", ChartSeries::Style::line, {}, std::nullopt, {}};
      ChartSeries used{d.label, ChartSeries::Style::line, {}, std::nullopt, {}};
      for (std::size_t i = 0; i < g.t_s.size(); ++i) {
        if (g.waiting[i]) {
          waiting.points.emplace_back(g.t_s[i], *g.waiting[i]);
        }
        if (g.running[i]) {
          running.points.emplace_back(g.t_s[i], *g.running[i]);
        }
        if (g.kv_cache_usage[i]) {
          used.points.emplace_back(g.t_s[i], *g.kv_cache_usage[i] * 100);
        }
      }
      queue.series.push_back(std::move(waiting));
      queue.series.push_back(std::move(running));
      kv.series.push_back(std::move(used));
    }
    if (!d.levels.empty()) {
      ChartSeries by_load{
          d.label, ChartSeries::Style::line, {}, d.knee, d.kind == RunDocument::Kind::sweep ? "knee" : "max load"};
      ChartSeries by_rate = by_load;
      for (const auto& l : d.levels) {
        by_load.points.emplace_back(l.level, throughput(l.summary));
        by_rate.points.emplace_back(throughput(l.summary), l.summary.ttft_ms.p99);
      }
      load.series.push_back(std::move(by_load));
      latency.series.push_back(std::move(by_rate));
      level_kind = level_kind.empty() || level_kind == d.level_kind ? d.level_kind : "load";
    } else {
      latency.series.push_back(
          {d.label, ChartSeries::Style::points, {{throughput(d.summary), d.summary.ttft_ms.p99}}, std::nullopt, {}});
    }
    auto cdf = [](const bench::LogHistogram& h) {
      auto points = h.cdf();
      if (!points.empty()) {
        points.insert(points.begin(), {points.front().first, 0.0});
      }
      return points;
    };
    ttft.series.push_back({d.label, ChartSeries::Style::step, cdf(d.summary.ttft_hist), std::nullopt, {}});
    tpot.series.push_back({d.label, ChartSeries::Style::step, cdf(d.summary.tpot_hist), std::nullopt, {}});
    itl.series.push_back({d.label, ChartSeries::Style::line, distribution(d.summary.itl_hist), std::nullopt, {}});
    if (d.series) {
      ChartSeries f{d.label, ChartSeries::Style::line, {}, std::nullopt, {}};
      ChartSeries r = f;
      const std::vector<double>& per_second = prompts ? d.series->input_tokens_per_s : d.series->output_tokens_per_s;
      for (std::size_t i = 0; i < d.series->t_s.size(); ++i) {
        f.points.emplace_back(d.series->t_s[i] + 0.5, d.series->in_flight[i]);
        if (i < per_second.size()) {
          r.points.emplace_back(d.series->t_s[i] + 0.5, per_second[i]);
        }
      }
      flight.series.push_back(std::move(f));
      rate.series.push_back(std::move(r));
    }
  }
  html += "<h2>Charts</h2><div class=\"charts\">";
  if (!load.series.empty()) {
    load.x_label = level_kind == "rate"    ? "offered load (requests/s)"
                   : level_kind == "speed" ? "replay speed (x the trace's)"
                                           : "concurrency (requests in flight)";
    load.log_x = true;
    html += figure(load,
                   "Each sweep's throughput at each load level; the ring marks its knee (the rule is under "
                   "the sweep's table).");
  }
  html += figure(latency,
                 "Latency against the throughput that bought it: a sweep is a line from low to high load "
                 "with its knee ringed; a single run is one point.");
  html += figure(ttft,
                 "Share of requests whose first token came within the time on the x axis (from each "
                 "request's scheduled send time).");
  if (!prompts) {
    html += figure(tpot, "Share of requests whose mean time per output token after the first is within the x value.");
    html += figure(itl, "How the gaps between streamed tokens are spread (40 logarithmic bins).");
  }
  if (!flight.series.empty()) {
    html += figure(flight, "Requests in flight, averaged over each second of the run.");
    html += figure(rate, prompts ? "Prompt tokens of the requests sent in each second of the run (those answered)."
                                 : "Output tokens that arrived in each second of the run.");
  }
  if (!queue.series.empty()) {
    html += figure(queue,
                   "The server's own count of queued and running requests, read from its /metrics about once "
                   "a second (--server-metrics).");
    html += figure(kv, "The share of the server's KV-cache blocks in use, from its /metrics (--server-metrics).");
  }
  html += "</div>" + roofline_table(documents) + "<h2>Configuration</h2>" + config_table(documents);
  for (const auto& d : documents) {
    if (!d.levels.empty()) {
      html += levels_table(d);
    }
    html += html_model_table(d);
  }
  html += fmt::format("<script>{}</script></body></html>\n", kDrawnCheck);
  return html;
}

}  // namespace infergate::report
