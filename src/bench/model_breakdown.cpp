#include "bench/model_breakdown.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "bench/summary_json.hpp"

namespace infergate::bench {

ModelSummaries summarize_by_model(const std::vector<RequestRecord>& records, std::span<const std::string> models,
                                  std::span<const double> more) {
  ModelSummaries out;
  if (models.size() < 2) {
    return out;
  }
  for (std::size_t i = 0; i < models.size(); ++i) {
    out.emplace_back(models[i], summarize_model(records, static_cast<std::uint32_t>(i), more));
  }
  return out;
}

std::vector<Goodput> goodput_by_model(const std::vector<RequestRecord>& records, const ModelSummaries& models,
                                      const std::vector<Slo>& slos) {
  std::vector<Goodput> out;
  if (slos.empty()) {
    return out;
  }
  for (std::size_t i = 0; i < models.size(); ++i) {
    out.push_back(measure_goodput(records, models[i].second, slos, static_cast<std::uint32_t>(i)));
  }
  return out;
}

void print_model_breakdown(std::FILE* out, const ModelSummaries& models, std::span<const Goodput> goodputs) {
  if (models.empty()) {
    return;
  }
  const bool slo = goodputs.size() == models.size();
  std::size_t width = 5;
  for (const auto& [name, s] : models) {
    width = std::max(width, name.size());
  }
  const bool generated =
      std::any_of(models.begin(), models.end(), [](const auto& m) { return !prompt_only(m.second); });
  fmt::print(out, "  by model\n    {:<{}} {:>9} {:>7} {:>12} {:>21}{}{}\n", "model", width, "completed", "failed",
             generated ? "output tok/s" : "input tok/s", "TTFT p50 / p99 ms", generated ? "     TPOT p50 / p99 ms" : "",
             slo ? "  good req/s  SLOs" : "");
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto& [name, s] = models[i];
    std::string line = fmt::format("    {:<{}} {:>9} {:>7} {:>12.1f} {:>10.2f} / {:>8.2f}", name, width, s.completed,
                                   s.failed, measured_rate(s, !generated), s.ttft_ms.p50, s.ttft_ms.p99);
    if (generated) {
      line += fmt::format(" {:>10.2f} / {:>8.2f}", s.tpot_ms.p50, s.tpot_ms.p99);
    }
    if (slo) {
      const Goodput& g = goodputs[i];
      line += fmt::format("  {:>10.2f}  {}", g.requests_per_s,
                          g.met ? std::string("met") : fmt::format("broken: {}", fmt::join(g.broken, "; ")));
    }
    fmt::print(out, "{}\n", line);
  }
}

boost::json::object model_breakdown_json(const ModelSummaries& models, std::span<const Goodput> goodputs,
                                         const std::vector<Slo>& slos) {
  boost::json::object out;
  for (std::size_t i = 0; i < models.size(); ++i) {
    boost::json::object summary = summary_json(models[i].second);
    if (goodputs.size() == models.size()) {
      summary["goodput"] = goodput_json(goodputs[i], slos);
    }
    out[models[i].first] = std::move(summary);
  }
  return out;
}

ModelSummaries model_breakdown_from_json(const boost::json::value& value) {
  if (!value.is_object()) {
    throw std::runtime_error("'by_model' must be an object of summaries by model name");
  }
  ModelSummaries out;
  for (const auto& [name, summary] : value.get_object()) {
    out.emplace_back(std::string(name), summary_from_json(summary));
  }
  return out;
}

}  // namespace infergate::bench
