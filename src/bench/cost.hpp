#pragma once
// What the measured throughput costs. Hosted APIs bill per token (`--price in=0.15,out=0.60`, US
// dollars per million input and output tokens); self-hosted hardware bills per hour
// (`--hourly-cost 2.50`), which the measured output throughput turns into dollars per million
// output tokens.
#include <boost/json/object.hpp>

#include <cstdio>
#include <optional>
#include <string_view>

#include "bench/summary.hpp"

namespace infergate::bench {

struct Pricing {
  std::optional<double> input_per_million;  // USD
  std::optional<double> output_per_million;
  std::optional<double> hourly;  // USD per hour of the endpoint's hardware

  [[nodiscard]] bool empty() const { return !input_per_million && !output_per_million && !hourly; }
};

// "in=0.15,out=0.60" (either may be left out); throws std::invalid_argument naming the bad entry.
Pricing parse_price(std::string_view text);

struct Cost {
  // Per-token prices: what this run's tokens cost, and that per million output tokens.
  std::optional<double> run_usd;
  std::optional<double> per_million_output_by_tokens;
  std::optional<double> per_request_usd;
  // Hourly hardware: the hour's price over the output tokens it makes at the measured rate.
  std::optional<double> per_million_output_by_hour;
  double output_tokens_per_s = 0;  // the rate the hourly figure used
};

// `output_tokens_per_s` is the steady-state rate where there is one (what the hardware sustains).
Cost measure_cost(const Pricing& pricing, const BenchSummary& summary, double output_tokens_per_s);

void print_cost(std::FILE* out, const Pricing& pricing, const Cost& cost);
boost::json::object cost_json(const Pricing& pricing, const Cost& cost);

}  // namespace infergate::bench
