#pragma once
// Charts drawn as inline SVG by our own code, so a report opens anywhere without the network:
// axes with round-number ticks and units, one colour per series with a legend, an optional
// logarithmic x axis, and marked points (the knee). Every data mark has class "data" so a browser
// test can check that each chart drew something.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace infergate::report {

struct ChartSeries {
  enum class Style { line, step, points };
  std::string name;
  Style style = Style::line;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in order
  std::optional<std::size_t> marked;              // a point to ring and label
  std::string mark_label;
};

struct Chart {
  std::string id;  // unique in the page
  std::string title;
  std::string x_label;  // with its unit: "output tokens/s", "TTFT (ms)"
  std::string y_label;
  bool log_x = false;
  std::optional<double> y_max;  // fixed top (1 for a CDF); otherwise from the data
  std::vector<ChartSeries> series;
};

// Round-number ticks covering [low, high]: steps of 1, 2 or 5 times a power of ten.
std::vector<double> nice_ticks(double low, double high, int target_count = 6);

// The <svg> element; an empty chart says there was no data instead of drawing empty axes.
std::string render_svg(const Chart& chart);

// Escapes text for HTML and SVG.
std::string escape_xml(std::string_view text);

}  // namespace infergate::report
