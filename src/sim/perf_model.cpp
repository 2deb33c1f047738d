#include "sim/perf_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace infergate::sim {

namespace {
// SRAM kept free on a dataflow chip for activations and the KV cache when sizing the pipeline.
constexpr double kDataflowWeightShare = 0.8;
// Activations cross the interconnect in 16 bits.
constexpr double kActivationBytes = 2.0;
}  // namespace

PerfModel::PerfModel(const Profile& profile) : PerfModel(profile, profile.hardware->efficiency) {}

PerfModel::PerfModel(const Profile& profile, Efficiency efficiency) : profile_(profile), efficiency_(efficiency) {
  weight_bytes_ = profile.model->params * profile.precision->weight_bytes_per_param;
  const auto& m = *profile.model;
  if (m.experts > 0) {
    // active = shared + experts x k/E, total = shared + experts.
    const double routed = static_cast<double>(m.experts_per_token) / m.experts;
    expert_params_ = (m.params - m.active_params) / (1.0 - routed);
  }
  shared_weight_bytes_ = (m.params - expert_params_) * profile.precision->weight_bytes_per_param;
  devices_ = profile.devices;
  const auto& hw = *profile.hardware;
  if (hw.sram_dataflow) {
    const double per_chip = hw.memory_bytes * kDataflowWeightShare;
    devices_ = std::max(devices_, static_cast<int>(std::ceil(weight_bytes_ / per_chip)));
  } else if (devices_ > 1 && hw.interconnect_bw <= 0) {
    throw std::invalid_argument(fmt::format(
        "hardware '{}' has no interconnect_gb_s, so it cannot run tensor parallel over {} devices", hw.id, devices_));
  }
}

double PerfModel::kv_bytes_per_token() const {
  const auto& m = *profile_.model;
  return 2.0 * m.layers * m.kv_heads * m.head_dim * profile_.precision->kv_bytes_per_element;
}

double PerfModel::kv_bytes(double context) const {
  const auto& m = *profile_.model;
  const double per_layer = kv_bytes_per_token() / m.layers;
  const double windowed = m.sliding_window > 0 ? std::min(context, static_cast<double>(m.sliding_window)) : context;
  return per_layer * (m.sliding_layers * windowed + (m.layers - m.sliding_layers) * context);
}

double PerfModel::kv_budget_bytes() const {
  const double memory = profile_.hardware->memory_bytes * devices_ * efficiency_.memory_utilization;
  return memory - weight_bytes_;
}

double PerfModel::expert_bytes_read(double tokens) const {
  const auto& m = *profile_.model;
  if (m.experts == 0 || tokens <= 0) {
    return 0;
  }
  // Uniform routing: an expert is untouched by a token with probability 1 - k/E.
  const double touched = 1.0 - std::pow(1.0 - static_cast<double>(m.experts_per_token) / m.experts, tokens);
  return expert_params_ * touched * profile_.precision->weight_bytes_per_param;
}

double PerfModel::weight_bytes_read(double tokens) const {
  return weight_bytes_read(tokens, expert_bytes_read(tokens));
}

double PerfModel::weight_bytes_read(double tokens, double expert_bytes) const {
  if (profile_.model->experts == 0 || tokens <= 0) {
    return weight_bytes_;
  }
  return shared_weight_bytes_ + expert_bytes;
}

double PerfModel::allreduce_seconds(double tokens) const {
  const auto& hw = *profile_.hardware;
  if (devices_ <= 1 || hw.sram_dataflow) {
    return 0;
  }
  // Ring all-reduce: each device sends and receives 2(g-1)/g of the message; the datasheet
  // interconnect figure counts both directions.
  const double g = devices_;
  const double message = tokens * profile_.model->hidden * kActivationBytes;
  const double one = hw.interconnect_latency_s + 2.0 * (g - 1) / g * message / (hw.interconnect_bw / 2);
  return 2.0 * profile_.model->layers * one;
}

double PerfModel::peak_flops() const {
  return profile_.computes_in_8_bits() ? profile_.hardware->flops_8bit : profile_.hardware->flops_16bit;
}

double PerfModel::compute_efficiency() const {
  return profile_.computes_in_8_bits() && efficiency_.compute_8bit > 0 ? efficiency_.compute_8bit : efficiency_.compute;
}

bool PerfModel::attention_in_8_bits() const {
  return profile_.computes_in_8_bits() && profile_.precision->kv_bytes_per_element <= 1;
}

double PerfModel::attention_peak_flops() const {
  return attention_in_8_bits() ? peak_flops() : profile_.hardware->flops_16bit;
}

double PerfModel::attention_compute_efficiency() const {
  return attention_in_8_bits() ? compute_efficiency() : efficiency_.compute;
}

double PerfModel::linear_flops(const StepShape& step) const {
  return 2.0 * profile_.model->active_params * (step.prefill_tokens + step.decode_sequences);
}

double PerfModel::expert_flops(const StepShape& step) const {
  const auto& m = *profile_.model;
  if (m.experts == 0) {
    return 0;
  }
  return 2.0 * expert_params_ * m.experts_per_token / m.experts * (step.prefill_tokens + step.decode_sequences);
}

double PerfModel::attention_flops(const StepShape& step) const {
  const auto& m = *profile_.model;
  const double decode_context = step.decode_kv_bytes / std::max(kv_bytes_per_token(), 1.0);
  return 4.0 * m.layers * m.heads * m.head_dim * (step.prefill_attention + decode_context);
}

StepTime PerfModel::step_time(const StepShape& step) const {
  if (profile_.hardware->sram_dataflow) {
    return dataflow_step_time(step);
  }
  const double g = devices_;
  const double tokens = step.prefill_tokens + step.decode_sequences;
  // Routed experts count as if 1 / expert_efficiency times as large at the dense rates.
  const double expert_weight = 1.0 / efficiency_.expert_efficiency - 1.0;
  const double experts = expert_bytes_read(tokens);
  const double bytes = (weight_bytes_read(tokens, experts) + expert_weight * experts + step.decode_kv_bytes) / g;
  const double linear = linear_flops(step) + expert_weight * expert_flops(step);
  StepTime t;
  t.memory = bytes / (profile_.hardware->memory_bw * efficiency_.memory);
  t.compute = (linear / (peak_flops() * compute_efficiency()) +
               attention_flops(step) / (attention_peak_flops() * attention_compute_efficiency())) /
              g;
  t.interconnect = allreduce_seconds(tokens);
  t.overhead = overhead_seconds(step);
  t.serial = efficiency_.serial_share * std::min(t.memory, t.compute);
  t.total = std::max(t.memory, t.compute) + t.serial + t.interconnect + t.overhead;
  return t;
}

// A dataflow pipeline: a token passes every chip in turn; each chip reads its share of the weights
// from SRAM, computes its layers (each taking at least the family's layer latency, since its
// operations depend on one another) and hands its activations on. Tokens of a batch or a prompt
// follow one another down the pipe.
StepTime PerfModel::dataflow_step_time(const StepShape& step) const {
  const auto& hw = *profile_.hardware;
  const double chips = devices_;
  const double tokens = std::max(1.0, step.prefill_tokens + step.decode_sequences);
  const double per_chip_bytes = (weight_bytes_read(tokens) + step.decode_kv_bytes) / chips;
  const double read = per_chip_bytes / (hw.memory_bw * efficiency_.memory);
  const double compute = 2.0 * profile_.model->active_params / chips / (peak_flops() * compute_efficiency());
  const double layers = profile_.model->layers / chips * efficiency_.layer_latency_s;
  const double stage = std::max({read, compute, layers});
  const double trail = (tokens - 1.0) * std::max(compute, efficiency_.hop_latency_s);
  StepTime t;
  t.memory = chips * read;
  t.compute = chips * compute + trail;
  t.layer_latency = chips * layers;
  t.interconnect = chips * efficiency_.hop_latency_s;
  t.overhead = overhead_seconds(step);
  t.total = chips * (stage + efficiency_.hop_latency_s) + trail + t.overhead;
  return t;
}

double PerfModel::overhead_seconds(const StepShape& step) const {
  return efficiency_.step_overhead_s + profile_.model->layers * efficiency_.layer_overhead_s +
         (step.prefill_tokens > 0 ? efficiency_.prefill_overhead_s : 0.0);
}

Bound StepTime::bound() const {
  Bound bound = Bound::bandwidth;
  double largest = memory;
  for (auto [part, b] : {std::pair{compute, Bound::compute}, std::pair{layer_latency, Bound::layer_latency},
                         std::pair{interconnect, Bound::interconnect}}) {
    if (part > largest) {
      largest = part;
      bound = b;
    }
  }
  return bound;
}

const char* to_string(Bound bound) {
  switch (bound) {
    case Bound::bandwidth:
      return "bandwidth";
    case Bound::compute:
      return "compute";
    case Bound::layer_latency:
      return "layer latency";
    case Bound::interconnect:
      return "interconnect";
    case Bound::capacity:
      return "capacity";
  }
  return "?";
}

StepShape PerfModel::decode_shape(int batch, double context_per_sequence) const {
  return StepShape{0, 0, static_cast<double>(batch), batch * kv_bytes(context_per_sequence)};
}

StepShape PerfModel::prefill_shape(int prompt_tokens) {
  StepShape shape;
  shape.add_prefill_chunk(0, prompt_tokens);
  return shape;
}

double PerfModel::decode_step_seconds(int batch, double context_per_sequence) const {
  return step_seconds(decode_shape(batch, context_per_sequence));
}

double PerfModel::prefill_seconds(int prompt_tokens) const {
  return step_seconds(prefill_shape(prompt_tokens));
}

}  // namespace infergate::sim
