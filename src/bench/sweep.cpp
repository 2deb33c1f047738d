#include "bench/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace infergate::bench {

SweepSpec parse_sweep(std::string_view text) {
  SweepSpec spec;
  if (text == "auto") {
    return spec;
  }
  const std::size_t eq = text.find('=');
  const std::string_view kind = text.substr(0, eq);
  if (eq == std::string_view::npos || (kind != "concurrency" && kind != "rate" && kind != "speed")) {
    throw std::invalid_argument(
        fmt::format("--sweep '{}': use concurrency=1,2,4,..., rate=R1,R2,..., speed=S1,S2,... or auto", text));
  }
  spec.kind = kind == "rate"    ? SweepSpec::Kind::rate
              : kind == "speed" ? SweepSpec::Kind::speed
                                : SweepSpec::Kind::concurrency;
  std::string_view list = text.substr(eq + 1);
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    double value = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    const bool whole = spec.kind != SweepSpec::Kind::concurrency || value == std::floor(value);
    if (ec != std::errc{} || end != item.data() + item.size() || value <= 0 || !whole) {
      throw std::invalid_argument(
          fmt::format("--sweep: '{}' is not a positive {}", item,
                      spec.kind == SweepSpec::Kind::concurrency ? "whole concurrency" : kind_name(spec.kind)));
    }
    spec.levels.push_back(value);
  }
  if (spec.levels.empty()) {
    throw std::invalid_argument("--sweep lists no levels");
  }
  std::sort(spec.levels.begin(), spec.levels.end());
  spec.levels.erase(std::unique(spec.levels.begin(), spec.levels.end()), spec.levels.end());
  return spec;
}

const char* kind_name(SweepSpec::Kind kind) {
  switch (kind) {
    case SweepSpec::Kind::rate:
      return "rate";
    case SweepSpec::Kind::speed:
      return "speed";
    case SweepSpec::Kind::concurrency:
      break;
  }
  return "concurrency";
}

std::string KneeRule::describe(bool prompts) const {
  return fmt::format(
      "knee: the last load before the first step up that raises throughput by less than {:g}% while p99 TTFT{} "
      "rises by more than {:g}%",
      gain * 100, prompts ? "" : " or p99 TPOT", latency_rise * 100);
}

namespace {

double rise(double before, double after) {
  return before > 0 ? after / before - 1 : 0;
}

}  // namespace

std::optional<Knee> find_knee(const std::vector<SweepPoint>& points, const KneeRule& rule) {
  for (std::size_t i = 1; i < points.size(); ++i) {
    const BenchSummary& a = points[i - 1].summary;
    const BenchSummary& b = points[i].summary;
    const double throughput = rise(token_throughput(a), token_throughput(b));
    const double ttft = rise(a.ttft_ms.p99, b.ttft_ms.p99);
    const double tpot = rise(a.tpot_ms.p99, b.tpot_ms.p99);
    if (throughput < rule.gain && (ttft > rule.latency_rise || tpot > rule.latency_rise)) {
      const std::string tpot_rise =
          prompt_only(a) && prompt_only(b) ? "" : fmt::format(", p99 TPOT {:+.1f}%", tpot * 100);
      return Knee{i - 1, fmt::format("from {:g} to {:g}: throughput {:+.1f}%, p99 TTFT {:+.1f}%{}", points[i - 1].level,
                                     points[i].level, throughput * 100, ttft * 100, tpot_rise)};
    }
  }
  return std::nullopt;
}

std::optional<double> next_auto_level(const std::vector<SweepPoint>& points, const KneeRule& rule, double max_level,
                                      SweepSpec::Kind kind) {
  if (points.empty()) {
    return 1.0;
  }
  const auto knee = find_knee(points, rule);
  const auto broken =
      std::find_if(points.begin(), points.end(), [](const SweepPoint& p) { return p.goodput && !p.goodput->met; });
  // Where the doubling stopped: the step past the knee, or the first level that broke an SLO.
  std::optional<std::size_t> stop;
  if (knee) {
    stop = knee->index + 1;
  }
  if (broken != points.end()) {
    const auto b = static_cast<std::size_t>(broken - points.begin());
    stop = stop ? std::min(*stop, b) : b;
  }
  if (!stop) {
    const double next = points.back().level * 2;
    return next <= max_level ? std::optional(next) : std::nullopt;
  }
  if (*stop == 0) {
    return std::nullopt;  // the first level already breaks an SLO
  }
  // One level halfway between the stop and the level before it, unless it is already measured.
  const double lo = points[*stop - 1].level;
  const double hi = points[*stop].level;
  double mid = (lo + hi) / 2;
  if (kind == SweepSpec::Kind::concurrency) {
    mid = std::floor(mid);
  }
  const bool measured =
      std::any_of(points.begin(), points.end(), [mid](const SweepPoint& p) { return std::abs(p.level - mid) < 1e-9; });
  constexpr double kFinestStep = 1.25;  // levels closer than this ratio are not split again
  if (measured || mid <= lo || mid >= hi || hi / lo < kFinestStep) {
    return std::nullopt;
  }
  return mid;
}

}  // namespace infergate::bench
