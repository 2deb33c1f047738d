#include "sim/perf_model.hpp"

#include <algorithm>
#include <cmath>

namespace infergate::sim {

namespace {
// SRAM kept free on a dataflow chip for activations and the KV cache when sizing the pipeline.
constexpr double kDataflowWeightShare = 0.8;
}  // namespace

PerfModel::PerfModel(const Profile& profile, Efficiency efficiency) : profile_(profile), efficiency_(efficiency) {
  weight_bytes_ = profile.model->params * profile.precision->weight_bytes_per_param;
  devices_ = profile.devices;
  if (profile.hardware->sram_dataflow) {
    const double per_chip = profile.hardware->memory_bytes * kDataflowWeightShare;
    devices_ = std::max(devices_, static_cast<int>(std::ceil(weight_bytes_ / per_chip)));
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

double PerfModel::peak_flops() const {
  const auto& hw = *profile_.hardware;
  return profile_.precision->fp8_compute && hw.flops_fp8 > 0 ? hw.flops_fp8 : hw.flops_bf16;
}

double PerfModel::step_seconds(const StepShape& step) const {
  if (profile_.hardware->sram_dataflow) {
    return dataflow_step_seconds(step);
  }
  const auto& m = *profile_.model;
  const double g = devices_;
  const double bytes = (weight_bytes_ + step.decode_kv_bytes) / g;
  const double memory_time = bytes / (profile_.hardware->memory_bw * efficiency_.memory);
  // Linear layers: 2 FLOPs per active parameter per token. Attention: QK^T and PV, 2 FLOPs each
  // per query head dimension per attended position.
  const double tokens = step.prefill_tokens + step.decode_sequences;
  const double attention_width = 4.0 * m.layers * m.heads * m.head_dim;
  const double decode_context = step.decode_kv_bytes / std::max(kv_bytes_per_token(), 1.0);
  const double flops = 2.0 * m.active_params * tokens + attention_width * (step.prefill_attention + decode_context);
  const double compute_time = flops / g / (peak_flops() * efficiency_.compute);
  return std::max(memory_time, compute_time) + efficiency_.step_overhead_s;
}

// A dataflow pipeline: a token passes every chip in turn; each chip reads its share of the weights
// from SRAM and hands its activations on. Sequences in a batch follow one another down the pipe.
double PerfModel::dataflow_step_seconds(const StepShape& step) const {
  const auto& hw = *profile_.hardware;
  const double chips = devices_;
  const double per_chip_bytes = (weight_bytes_ + step.decode_kv_bytes) / chips;
  const double per_chip_read = per_chip_bytes / (hw.memory_bw * efficiency_.memory);
  const double tokens = std::max(1.0, step.prefill_tokens + step.decode_sequences);
  const double per_chip_compute = 2.0 * profile_.model->active_params / chips / (peak_flops() * efficiency_.compute);
  const double stage = std::max(per_chip_read, per_chip_compute) + hw.hop_latency_s;
  return chips * stage + (tokens - 1.0) * std::max(per_chip_compute, hw.hop_latency_s) + efficiency_.step_overhead_s;
}

double PerfModel::decode_step_seconds(int batch, double context_per_sequence) const {
  return step_seconds(StepShape{0, 0, static_cast<double>(batch), batch * kv_bytes(context_per_sequence)});
}

double PerfModel::prefill_seconds(int prompt_tokens) const {
  const double n = prompt_tokens;
  return step_seconds(StepShape{n, n * (n + 1) / 2, 0, 0});
}

}  // namespace infergate::sim
