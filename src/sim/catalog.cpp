#include "sim/catalog.hpp"

#include <array>

namespace infergate::sim {
namespace {

constexpr double GB = 1e9;
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
constexpr double TB = 1e12;
constexpr double T = 1e12;

constexpr std::array kHardware = {
    HardwareSpec{"h100", "NVIDIA H100 SXM 80GB", 80 * GB, 3.35 * TB, 989.4 * T, 1978.9 * T, 900 * GB, false, 0,
                 "NVIDIA H100 Tensor Core GPU datasheet (SXM column): 80 GB HBM3, 3.35 TB/s, BF16 1,979 TFLOPS "
                 "and FP8 3,958 TFLOPS with sparsity (half dense), NVLink 900 GB/s"},
    HardwareSpec{"h200", "NVIDIA H200 SXM 141GB", 141 * GB, 4.8 * TB, 989.4 * T, 1978.9 * T, 900 * GB, false, 0,
                 "NVIDIA H200 Tensor Core GPU datasheet (SXM column): 141 GB HBM3e, 4.8 TB/s, same tensor "
                 "throughput as H100 SXM, NVLink 900 GB/s"},
    HardwareSpec{"a100", "NVIDIA A100 SXM 80GB", 80 * GB, 2.039 * TB, 312 * T, 0, 600 * GB, false, 0,
                 "NVIDIA A100 Tensor Core GPU datasheet (80GB SXM column): 2,039 GB/s, BF16 312 TFLOPS dense, "
                 "no FP8, NVLink 600 GB/s"},
    HardwareSpec{"l40s", "NVIDIA L40S 48GB", 48 * GB, 864 * GB, 362.05 * T, 733 * T, 64 * GB, false, 0,
                 "NVIDIA L40S datasheet: 48 GB GDDR6, 864 GB/s, BF16 362.05 TFLOPS and FP8 733 TFLOPS dense "
                 "(datasheet lists sparsity figures, twice these), PCIe Gen4 x16 64 GB/s"},
    HardwareSpec{"rtx4090", "NVIDIA GeForce RTX 4090 24GB", 24 * GiB, 1.008 * TB, 165.2 * T, 330.3 * T, 64 * GB, false,
                 0,
                 "NVIDIA Ada Lovelace GPU architecture whitepaper, RTX 4090 column: 24 GB GDDR6X, 1,008 GB/s, "
                 "BF16 165.2 and FP8 330.3 dense TFLOPS with FP32 accumulate, PCIe Gen4 x16"},
    HardwareSpec{"lpu", "Groq LPU (first generation, SRAM dataflow)", 230e6, 80 * TB, 188 * T, 0, 0.5 * TB, true, 3e-6,
                 "Groq LPU product brief and Abts et al., 'Think Fast: A Tensor Streaming Processor', ISCA 2020: "
                 "230 MB on-chip SRAM per chip, 80 TB/s on-die bandwidth, 188 TFLOPS FP16, 750 TOPS INT8, "
                 "16 chip-to-chip links; per-hop latency 3 us is our assumption until calibrated"},
};

constexpr std::array kModels = {
    ModelSpec{"gemma-4-31b", "Google Gemma 4 31B", 30.7e9, 30.7e9, 60, 5376, 32, 16, 256, 1024, 50, 262144,
              "Gemma 4 model card and config (google/gemma-4-31B-it): 30.7B parameters, 60 layers, 32 query "
              "/ 16 KV heads, head dim 256, 5 sliding-window (1,024 tokens) layers per global layer, 256K "
              "context. Hidden size 5,376 assumed from Gemma 3 27B; global layers modelled with the same KV "
              "shape as sliding ones (an upper bound on their KV)"},
    ModelSpec{"llama-3.1-8b", "Meta Llama 3.1 8B", 8.03e9, 8.03e9, 32, 4096, 32, 8, 128, 0, 0, 131072,
              "meta-llama/Llama-3.1-8B config.json: 32 layers, hidden 4096, 32 heads, 8 KV heads, head dim "
              "128, 131,072 positions; 8.03B parameters per the model card"},
    ModelSpec{"llama-3.3-70b", "Meta Llama 3.3 70B", 70.6e9, 70.6e9, 80, 8192, 64, 8, 128, 0, 0, 131072,
              "meta-llama/Llama-3.3-70B-Instruct config.json: 80 layers, hidden 8192, 64 heads, 8 KV heads, "
              "head dim 128, 131,072 positions; 70.6B parameters per the model card"},
    ModelSpec{"qwen2.5-7b", "Qwen2.5 7B", 7.61e9, 7.61e9, 28, 3584, 28, 4, 128, 0, 0, 131072,
              "Qwen/Qwen2.5-7B-Instruct config.json and model card: 7.61B parameters, 28 layers, hidden 3584, "
              "28 query / 4 KV heads, head dim 128, 131,072 tokens with YaRN"},
};

constexpr std::array kPrecisions = {
    PrecisionSpec{"bf16", 2.0, 2.0, false, "bfloat16 weights and KV cache: 2 bytes each"},
    PrecisionSpec{"fp8", 1.0, 1.0, true,
                  "FP8 (E4M3) weights, activations and KV cache, as in NVIDIA TensorRT-LLM's FP8 checkpoints"},
    PrecisionSpec{"int4", 0.5625, 2.0, false,
                  "4-bit weights with one 16-bit scale per 32 weights (AWQ/GPTQ/Q4_0-style): 4.5 bits; "
                  "activations and KV cache in 16 bits"},
};

template <class Spec>
const Spec* find_in(std::span<const Spec> specs, std::string_view id) {
  for (const auto& s : specs) {
    if (s.id == id) {
      return &s;
    }
  }
  return nullptr;
}

}  // namespace

std::span<const HardwareSpec> hardware_catalog() {
  return kHardware;
}
std::span<const ModelSpec> model_catalog() {
  return kModels;
}
std::span<const PrecisionSpec> precision_catalog() {
  return kPrecisions;
}

const HardwareSpec* find_hardware(std::string_view id) {
  return find_in(hardware_catalog(), id);
}
const ModelSpec* find_model(std::string_view id) {
  return find_in(model_catalog(), id);
}
const PrecisionSpec* find_precision(std::string_view id) {
  return find_in(precision_catalog(), id);
}

}  // namespace infergate::sim
