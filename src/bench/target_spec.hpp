#pragma once
// `--target NAME=URL[,model=M][,api_key_env=VAR][,price_in=USD][,price_out=USD][,hourly_cost=USD]`:
// one of several endpoints measured side by side, with the prices it is billed at where they are
// its own (a hosted API per token beside hardware by the hour).
#include <optional>
#include <string>
#include <string_view>

namespace infergate::bench {

struct TargetSpec {
  std::string name;
  std::string url;
  std::string model;        // empty: the first the endpoint lists
  std::string api_key_env;  // empty: --api-key or $OPENAI_API_KEY
  // In place of --price and --hourly-cost when any is given: USD per million input and output
  // tokens, and per hour.
  std::optional<double> price_in;
  std::optional<double> price_out;
  std::optional<double> hourly_cost;
};

// Throws std::invalid_argument naming what is wrong and the accepted form.
TargetSpec parse_target_spec(std::string_view text);

}  // namespace infergate::bench
