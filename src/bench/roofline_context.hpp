#pragma once
// What the endpoint's model on its hardware could reach at best (from the simulator's roofline,
// filled in by the caller: bench never includes the simulator) and how much of it a run measured.
#include <boost/json/object.hpp>

#include <cstdio>
#include <optional>
#include <string>

#include "bench/summary.hpp"

namespace infergate::bench {

struct RooflineContext {
  std::string profile;          // "gemma-4-31b:bf16@h200"
  double ideal_decode_tps = 0;  // one stream at peak memory bandwidth: the pure ceiling
  double decode_tps = 0;        // one stream, at the model's calibrated efficiency
  int batch = 1;                // the largest batch that fits
  double batch_tps = 0;         // output tokens/s of that batch
  double prefill_ms = 0;        // the mean request's prompt (embeddings: all its texts), alone
};

struct RooflineFractions {
  std::optional<double> stream_decode;      // 1000 / TPOT p50 over ideal_decode_tps
  std::optional<double> throughput;         // output tok/s over batch_tps
  std::optional<double> ttft_over_prefill;  // TTFT p50 over prefill_ms (1 = nothing but prefill)
};

RooflineFractions roofline_fractions(const RooflineContext& context, const BenchSummary& summary);

void print_roofline(std::FILE* out, const RooflineContext& context, const BenchSummary& summary);
boost::json::object roofline_json(const RooflineContext& context);
// Reads roofline_json back; nullopt when the value is not one.
std::optional<RooflineContext> roofline_from_json(const boost::json::value* value);

}  // namespace infergate::bench
