#pragma once
// The built-in catalog of hardware, model shapes and precisions the simulator and the roofline
// know, each entry with the public source of its numbers (catalog.cpp).
#include <span>
#include <string_view>

namespace infergate::sim {

struct HardwareSpec {
  std::string_view id;     // as written in a profile: "h100"
  std::string_view name;   // "NVIDIA H100 SXM 80GB"
  double memory_bytes;     // device memory; for an SRAM dataflow chip, its on-chip SRAM
  double memory_bw;        // bytes/s from that memory
  double flops_bf16;       // dense FLOP/s
  double flops_fp8;        // dense FLOP/s; 0 where fp8 is not supported (fp8 weights then compute in bf16)
  double interconnect_bw;  // bytes/s per device to its peers (NVLink, PCIe, chip-to-chip links)
  bool sram_dataflow;      // weights spread over as many chips as it takes, read from SRAM
  double hop_latency_s;    // SRAM dataflow only: cost of passing activations to the next chip
  std::string_view source;
};

struct ModelSpec {
  std::string_view id;
  std::string_view name;
  double params;         // total parameters
  double active_params;  // parameters used per token (equal to params for dense models)
  int layers;
  int hidden;
  int heads;
  int kv_heads;
  int head_dim;
  int sliding_window;  // tokens a sliding-window layer keeps in its KV cache; 0 when none
  int sliding_layers;  // how many of the layers use the sliding window
  int max_context;
  std::string_view source;
};

struct PrecisionSpec {
  std::string_view id;
  double weight_bytes_per_param;
  double kv_bytes_per_element;
  bool fp8_compute;  // matmuls run on fp8 tensor cores where the hardware has them
  std::string_view source;
};

std::span<const HardwareSpec> hardware_catalog();
std::span<const ModelSpec> model_catalog();
std::span<const PrecisionSpec> precision_catalog();

const HardwareSpec* find_hardware(std::string_view id);
const ModelSpec* find_model(std::string_view id);
const PrecisionSpec* find_precision(std::string_view id);

}  // namespace infergate::sim
