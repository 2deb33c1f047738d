#pragma once
// The roofline performance model behind the simulator (docs/simulator.md derives it). A forward
// step reads every weight once and the KV cache of every decoding sequence, and does 2 FLOPs per
// active parameter per token; its time is the larger of the memory and the compute time, plus a
// fixed per-step overhead.
#include "sim/profile.hpp"

namespace infergate::sim {

// Fractions of datasheet peaks that real engines reach, and fixed costs. Defaults are rough
// values from the published measurements in shared/calibration (see docs/simulator.md).
struct Efficiency {
  double memory = 0.75;             // achieved / peak memory bandwidth while decoding
  double compute = 0.5;             // achieved / peak FLOP/s while prefilling
  double step_overhead_s = 0.0005;  // scheduling, kernel launches, sampling per step
  double memory_utilization = 0.9;  // share of device memory the engine may use (vLLM's default)
};

// What one engine step processes.
struct StepShape {
  double prefill_tokens = 0;     // new prompt tokens computed this step
  double prefill_attention = 0;  // sum over prefilled tokens of the context each attends to
  double decode_sequences = 0;   // sequences producing one token each
  double decode_kv_bytes = 0;    // KV cache those sequences read
};

class PerfModel {
 public:
  PerfModel(const Profile& profile, Efficiency efficiency = {});

  [[nodiscard]] const Profile& profile() const { return profile_; }
  [[nodiscard]] const Efficiency& efficiency() const { return efficiency_; }

  // Devices the weights are spread over: the profile's count, or for SRAM dataflow chips as many
  // chips as the weights need (never fewer than the profile asks for).
  [[nodiscard]] int devices() const { return devices_; }
  [[nodiscard]] double weight_bytes() const { return weight_bytes_; }
  // KV bytes one token of context adds in a full-attention layer stack (2 x layers x kv_heads x
  // head_dim x bytes per element).
  [[nodiscard]] double kv_bytes_per_token() const;
  // KV bytes a sequence of `context` tokens holds, with sliding-window layers capped at the window.
  [[nodiscard]] double kv_bytes(double context) const;
  // Memory left for the KV cache on all devices after the weights; <= 0 when they do not fit.
  [[nodiscard]] double kv_budget_bytes() const;

  [[nodiscard]] double step_seconds(const StepShape& step) const;

  // Convenience forms of step_seconds for the classic questions.
  [[nodiscard]] double decode_step_seconds(int batch, double context_per_sequence) const;
  [[nodiscard]] double prefill_seconds(int prompt_tokens) const;

 private:
  [[nodiscard]] double peak_flops() const;
  [[nodiscard]] double dataflow_step_seconds(const StepShape& step) const;

  Profile profile_;
  Efficiency efficiency_;
  int devices_ = 1;
  double weight_bytes_ = 0;
};

}  // namespace infergate::sim
