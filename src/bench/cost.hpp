#pragma once
// What the measured throughput costs. Hosted APIs bill per token (`--price in=0.15,out=0.60`, US
// dollars per million input and output tokens); self-hosted hardware bills per hour
// (`--hourly-cost 2.50`), which the measured output throughput turns into dollars per million
// output tokens. A run that generated nothing (embeddings) is priced per million input tokens.
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
  // The same per million input tokens, for a run that generated nothing (embeddings), which is
  // billed by what it takes in.
  std::optional<double> per_million_input_by_tokens;
  std::optional<double> per_million_input_by_hour;
  double input_tokens_per_s = 0;
};

// `tokens_per_s`: the sustained rate (sustained_token_rate) of the tokens priced: output tokens,
// or input tokens for a run that generated nothing.
Cost measure_cost(const Pricing& pricing, const BenchSummary& summary, double tokens_per_s);

// The one figure a table shows: per million output tokens, else (a run that generated nothing)
// input tokens; by the hour where the hardware is priced, else by the per-token prices.
std::optional<double> headline_per_million(const Cost& cost);

void print_cost(std::FILE* out, const Pricing& pricing, const Cost& cost);
boost::json::object cost_json(const Pricing& pricing, const Cost& cost);
// A cost_json object read back: the prices it was figured at, and its figures. Throw
// std::runtime_error when a field is neither a number nor null.
Pricing pricing_from_cost_json(const boost::json::object& cost);
Cost cost_from_json(const boost::json::object& cost);

}  // namespace infergate::bench
