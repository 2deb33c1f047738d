#pragma once
// `infergate roofline`: what a model on given hardware can reach and which resource binds, from
// the same performance model the simulator runs (docs/simulator.md).
#include <string>

#include "sim/perf_model.hpp"

namespace infergate::sim {

struct RooflineQuery {
  int context = 8192;        // tokens each sequence holds while decoding
  int prompt_tokens = 1024;  // prompt whose prefill time is reported
  int max_batch = 65536;     // the largest batch considered, whatever fits
};

struct RooflineResult {
  Profile profile;          // as run: devices raised to what the model needs
  int devices_asked = 1;    // tensor-parallel degree asked for (dataflow: least chips)
  int devices_needed = 1;   // least devices holding the weights and one sequence of `context`
  bool fits = true;         // on the devices asked for
  double weight_bytes = 0;  // all of them
  double weight_bytes_per_device = 0;
  double usable_bytes_per_device = 0;  // memory the engine may use
  double kv_bytes_per_token = 0;       // full attention, all layers
  double kv_bytes_per_sequence = 0;    // at `context`, sliding windows counted
  int max_sequences = 0;               // sequences of `context` that fit beside the weights

  double ideal_decode_tps = 0;  // one stream at peak bandwidth, weights only: the pure ceiling
  double decode_tps = 0;        // one stream, calibrated efficiency
  StepTime decode_step;

  int batch = 1;  // the largest batch that fits (up to max_batch)
  double batch_tps = 0;
  double batch_tps_per_stream = 0;
  StepTime batch_step;
  Bound batch_bound = Bound::bandwidth;  // capacity when memory, not the step, stops the batch growing

  double prefill_seconds = 0;
  StepTime prefill_step;
};

// Throws std::invalid_argument for a profile that cannot run at all (tensor parallel without an
// interconnect, or a model no device count holds).
RooflineResult roofline(const Profile& profile, const RooflineQuery& query);

// The arithmetic of `result` step by step, in words a newcomer follows.
std::string explain(const RooflineResult& result, const RooflineQuery& query);

// "61.4 GB", "983.0 kB": decimal units, as datasheets use.
std::string format_bytes(double bytes);

}  // namespace infergate::sim
