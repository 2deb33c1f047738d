#pragma once
// The roofline performance model behind the simulator (docs/simulator.md derives it). A forward
// step reads the weights its tokens use once and the KV cache of every decoding sequence, and does
// 2 FLOPs per active parameter per token (a mixture of experts' routed experts at a share of the
// dense rates); its time is the larger of the memory and the compute time, plus the share of the
// smaller that does not overlap it, the all-reduces of tensor parallelism and fixed costs per step
// and per layer. SRAM dataflow chips run a pipeline instead, whose latency comes from per-chip
// work and hops.
#include "sim/profile.hpp"

namespace infergate::sim {

// What one engine step processes.
struct StepShape {
  double prefill_tokens = 0;     // new prompt tokens computed this step
  double prefill_attention = 0;  // sum over prefilled tokens of the context each attends to
  double decode_sequences = 0;   // sequences producing one token each
  double decode_kv_bytes = 0;    // KV cache those sequences read

  // Adds `tokens` prompt tokens computed after the first `start` ones (already in the KV cache,
  // computed earlier or shared from the prefix cache): each attends to everything before it.
  void add_prefill_chunk(double start, double tokens) {
    prefill_tokens += tokens;
    prefill_attention += tokens * start + tokens * (tokens + 1) / 2;
  }
};

// What limits a step: the resource whose time is the largest part of it. `capacity` is never a
// step's own bound: the roofline uses it when memory, not the step, stops a batch growing.
enum class Bound { bandwidth, compute, layer_latency, interconnect, capacity };
const char* to_string(Bound bound);

// A step's time and where it goes. For GPUs, total = max(memory, compute) + serial +
// interconnect + overhead. For SRAM dataflow pipelines the parts are summed over the chips a token
// passes.
struct StepTime {
  double memory = 0;         // reading weights and KV cache
  double compute = 0;        // matmuls and attention
  double serial = 0;         // GPUs: the serial share of the shorter of memory and compute
  double layer_latency = 0;  // dataflow: the floor of dependent operations per layer
  double interconnect = 0;   // all-reduces (tensor parallel) or chip-to-chip hops
  double overhead = 0;
  double total = 0;
  [[nodiscard]] Bound bound() const;
};

class PerfModel {
 public:
  // With the hardware family's calibrated efficiency, or an explicit one. Throws
  // std::invalid_argument when tensor parallelism is asked of hardware without an interconnect.
  explicit PerfModel(const Profile& profile);
  PerfModel(const Profile& profile, Efficiency efficiency);

  [[nodiscard]] const Profile& profile() const { return profile_; }
  [[nodiscard]] const Efficiency& efficiency() const { return efficiency_; }
  // The peak FLOP/s the linear layers run against (the 8-bit rate where the precision computes in
  // 8 bits and the hardware has one) and the share of it reached.
  [[nodiscard]] double peak_flops() const;
  [[nodiscard]] double compute_efficiency() const;
  // The same for attention, which runs at the KV cache's width: in 16 bits over a 16-bit cache
  // even where the linear layers compute in 8.
  [[nodiscard]] double attention_peak_flops() const;
  [[nodiscard]] double attention_compute_efficiency() const;
  // A step's arithmetic: 2 FLOPs per active parameter per token in the linear layers; QK^T and PV
  // in attention, 2 FLOPs each per query head dimension per attended position.
  [[nodiscard]] double linear_flops(const StepShape& step) const;
  [[nodiscard]] double attention_flops(const StepShape& step) const;

  // Devices the weights are spread over: the profile's count, or for SRAM dataflow chips as many
  // chips as the weights need (never fewer than the profile asks for).
  [[nodiscard]] int devices() const { return devices_; }
  [[nodiscard]] double weight_bytes() const { return weight_bytes_; }
  // Weight bytes a step over `tokens` tokens reads: all of a dense model; for a mixture of
  // experts, the shared weights plus the experts those tokens route to (uniform routing).
  [[nodiscard]] double weight_bytes_read(double tokens) const;
  // The routed experts' part of weight_bytes_read, and of linear_flops: what runs at the family's
  // expert_efficiency (0 for a dense model).
  [[nodiscard]] double expert_bytes_read(double tokens) const;
  [[nodiscard]] double expert_flops(const StepShape& step) const;
  // Tensor parallel: the two all-reduces per layer of a step over `tokens` tokens.
  [[nodiscard]] double allreduce_seconds(double tokens) const;
  // KV bytes one token of context adds in a full-attention layer stack (2 x layers x kv_heads x
  // head_dim x bytes per element).
  [[nodiscard]] double kv_bytes_per_token() const;
  // KV bytes a sequence of `context` tokens holds, with sliding-window layers capped at the window.
  [[nodiscard]] double kv_bytes(double context) const;
  // Memory left for the KV cache on all devices after the weights; <= 0 when they do not fit.
  [[nodiscard]] double kv_budget_bytes() const;

  [[nodiscard]] StepTime step_time(const StepShape& step) const;
  [[nodiscard]] double step_seconds(const StepShape& step) const { return step_time(step).total; }

  // Convenience forms of step_seconds for the classic questions.
  [[nodiscard]] double decode_step_seconds(int batch, double context_per_sequence) const;
  [[nodiscard]] double prefill_seconds(int prompt_tokens) const;
  [[nodiscard]] StepShape decode_shape(int batch, double context_per_sequence) const;
  [[nodiscard]] static StepShape prefill_shape(int prompt_tokens);

 private:
  [[nodiscard]] double overhead_seconds(const StepShape& step) const;
  [[nodiscard]] StepTime dataflow_step_time(const StepShape& step) const;
  [[nodiscard]] bool attention_in_8_bits() const;
  // weight_bytes_read(tokens) where expert_bytes_read(tokens) is known already.
  [[nodiscard]] double weight_bytes_read(double tokens, double expert_bytes) const;

  Profile profile_;
  Efficiency efficiency_;
  int devices_ = 1;
  double weight_bytes_ = 0;
  double expert_params_ = 0;        // in all the routed experts together (0 for a dense model)
  double shared_weight_bytes_ = 0;  // what every token reads: all but the routed experts
};

}  // namespace infergate::sim
