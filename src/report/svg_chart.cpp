#include "report/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace infergate::report {

namespace {

constexpr double kWidth = 720;
constexpr double kHeight = 420;
constexpr double kLeft = 78;
constexpr double kRight = 24;
constexpr double kTop = 40;
constexpr double kBottom = 96;  // tick labels, the axis label, and the legend row
constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string tick_label(double v) {
  const double a = std::abs(v);
  if (a >= 1e6) {
    return fmt::format("{:g}M", v / 1e6);
  }
  if (a >= 1e4) {
    return fmt::format("{:g}k", v / 1e3);
  }
  return fmt::format("{:g}", v);
}

// Powers of ten (and 2x, 5x between them when the span is short) inside [low, high].
std::vector<double> log_ticks(double low, double high) {
  std::vector<double> ticks;
  if (high / low < 10) {  // under a decade: round linear steps read better
    for (double t : nice_ticks(low, high, 5)) {
      if (t >= low * 0.999 && t <= high * 1.001) {  // the last step may pass the axis's end
        ticks.push_back(t);
      }
    }
    return ticks;
  }
  const int first = static_cast<int>(std::floor(std::log10(low)));
  const int last = static_cast<int>(std::ceil(std::log10(high)));
  const bool dense = last - first <= 3;
  for (int e = first; e <= last; ++e) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (m != 1.0 && !dense) {
        continue;
      }
      const double v = m * std::pow(10.0, e);
      if (v >= low * 0.999 && v <= high * 1.001) {
        ticks.push_back(v);
      }
    }
  }
  return ticks;
}

}  // namespace

std::string escape_xml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::vector<double> nice_ticks(double low, double high, int target_count) {
  if (!std::isfinite(low) || !std::isfinite(high)) {
    return {std::isfinite(low) ? low : 0.0};
  }
  if (!(high > low)) {
    // Far from zero, adding 1 changes nothing: widen by the value's own scale.
    high = low + std::max(1.0, std::abs(low) * 1e-9);
  }
  const double raw = (high - low) / target_count;
  if (!std::isfinite(raw) || raw <= 0) {
    return {low};
  }
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) {
      break;
    }
  }
  std::vector<double> ticks;
  // From the first step at or above `low` to the first at or above `high`, so the ticks cover it.
  const double first = std::ceil(low / step - 1e-9);
  const double last = std::ceil(high / step - 1e-9);
  for (double i = first; i <= last; ++i) {
    ticks.push_back(i == 0 ? 0 : i * step);
  }
  return ticks;
}

std::string render_svg(const Chart& chart) {
  double x_low = std::numeric_limits<double>::infinity();
  double x_high = -x_low;
  double y_high = 0;
  std::size_t count = 0;
  for (const auto& s : chart.series) {
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y) || (chart.log_x && x <= 0)) {
        continue;
      }
      x_low = std::min(x_low, x);
      x_high = std::max(x_high, x);
      y_high = std::max(y_high, y);
      ++count;
    }
  }
  std::string svg = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" id="{}" viewBox="0 0 {} {}" width="{}" height="{}" role="img">)"
      R"(<title>{}</title><text x="{}" y="24" class="title">{}</text>)",
      escape_xml(chart.id), kWidth, kHeight, kWidth, kHeight, escape_xml(chart.title), kLeft, escape_xml(chart.title));
  if (count == 0) {
    svg +=
        fmt::format(R"(<text x="{}" y="{}" class="empty">no data to draw</text></svg>)", kWidth / 2 - 60, kHeight / 2);
    return svg;
  }
  // Axis ranges: linear axes start at zero; a log axis spans the data's decades.
  if (chart.log_x) {
    x_low = std::pow(10.0, std::floor(std::log10(x_low) * 4) / 4);
    x_high = std::pow(10.0, std::ceil(std::log10(x_high) * 4) / 4);
    if (x_high <= x_low) {
      x_high = x_low * 10;
    }
  } else {
    x_low = std::min(0.0, x_low);
    if (x_high <= x_low) {
      x_high = x_low + std::max(1.0, std::abs(x_low) * 1e-9);
    }
  }
  const std::vector<double> x_ticks = chart.log_x ? log_ticks(x_low, x_high) : nice_ticks(x_low, x_high);
  if (!chart.log_x) {
    x_high = std::max(x_high, x_ticks.back());
  }
  const double headroom = std::min(y_high * 1.05, std::numeric_limits<double>::max());
  const std::vector<double> y_ticks = nice_ticks(0, chart.y_max.value_or(y_high > 0 ? headroom : 1), 5);
  const double y_top = chart.y_max.value_or(y_ticks.back());
  const double plot_w = kWidth - kLeft - kRight;
  const double plot_h = kHeight - kTop - kBottom;
  auto px = [&](double x) {
    const double f = chart.log_x ? (std::log10(x) - std::log10(x_low)) / (std::log10(x_high) - std::log10(x_low))
                                 : (x - x_low) / (x_high - x_low);
    return kLeft + f * plot_w;
  };
  auto py = [&](double y) { return kTop + plot_h - std::clamp(y / y_top, 0.0, 1.02) * plot_h; };

  svg += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" class="plot"/>)", kLeft, kTop, plot_w, plot_h);
  for (double t : y_ticks) {
    svg += fmt::format(R"(<line x1="{}" x2="{}" y1="{:.1f}" y2="{:.1f}" class="grid"/>)"
                       R"(<text x="{}" y="{:.1f}" class="ytick">{}</text>)",
                       kLeft, kLeft + plot_w, py(t), py(t), kLeft - 6, py(t) + 4, tick_label(t));
  }
  for (double t : x_ticks) {
    svg += fmt::format(R"(<line x1="{:.1f}" x2="{:.1f}" y1="{}" y2="{}" class="grid"/>)"
                       R"(<text x="{:.1f}" y="{}" class="xtick">{}</text>)",
                       px(t), px(t), kTop, kTop + plot_h, px(t), kTop + plot_h + 16, tick_label(t));
  }
  svg += fmt::format(R"(<text x="{}" y="{}" class="xlabel">{}</text>)", kLeft + plot_w / 2, kTop + plot_h + 38,
                     escape_xml(chart.x_label + (chart.log_x ? " (log scale)" : "")));
  svg += fmt::format(R"svg(<text transform="translate(18 {}) rotate(-90)" class="ylabel">{}</text>)svg",
                     kTop + plot_h / 2, escape_xml(chart.y_label));

  double legend_x = kLeft;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    const char* colour = kPalette[i % std::size(kPalette)];
    std::string path;
    std::string dots;
    double last_y = 0;
    bool first = true;
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y) || (chart.log_x && x <= 0)) {
        continue;
      }
      if (s.style == ChartSeries::Style::step && !first) {
        path += fmt::format(" L{:.1f},{:.1f}", px(x), py(last_y));
      }
      path += fmt::format("{}{:.1f},{:.1f}", first ? "M" : " L", px(x), py(y));
      if (s.style == ChartSeries::Style::points || (s.style == ChartSeries::Style::line && s.points.size() <= 16)) {
        dots +=
            fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="3.5" fill="{}" class="data"/>)", px(x), py(y), colour);
      }
      last_y = y;
      first = false;
    }
    if (s.style != ChartSeries::Style::points && !path.empty()) {
      svg += fmt::format(R"(<path d="{}" stroke="{}" class="data line" data-series="{}"/>)", path, colour,
                         escape_xml(s.name));
    }
    svg += dots;
    if (s.marked && *s.marked < s.points.size()) {
      const auto [x, y] = s.points[*s.marked];
      const bool right_half = px(x) > kLeft + plot_w / 2;  // label on the side with room
      svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="9" stroke="{}" class="mark"/>)"
                         R"(<text x="{:.1f}" y="{:.1f}" class="marklabel" text-anchor="{}">{}</text>)",
                         px(x), py(y), colour, right_half ? px(x) - 11 : px(x) + 11, py(y) - 10,
                         right_half ? "end" : "start", escape_xml(s.mark_label));
    }
    const double legend_y = kHeight - 22;
    svg += fmt::format(R"(<rect x="{:.1f}" y="{}" width="14" height="4" fill="{}"/>)"
                       R"(<text x="{:.1f}" y="{}" class="legend">{}</text>)",
                       legend_x, legend_y - 4, colour, legend_x + 20, legend_y + 1, escape_xml(s.name));
    legend_x += 40 + 7.5 * static_cast<double>(s.name.size());
  }
  svg += "</svg>";
  return svg;
}

}  // namespace infergate::report
