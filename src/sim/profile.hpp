#pragma once
// A serving profile as users write it: MODEL:PRECISION@HARDWARE[xN], e.g. llama-3.3-70b:fp8@h100x2.
#include <string>
#include <string_view>

#include "sim/catalog.hpp"

namespace infergate::sim {

struct Profile {
  const ModelSpec* model = nullptr;
  const PrecisionSpec* precision = nullptr;
  const HardwareSpec* hardware = nullptr;
  int devices = 1;  // tensor-parallel degree (for SRAM dataflow chips: at least this many chips)

  [[nodiscard]] std::string to_string() const;
  // Matmuls run at the hardware's 8-bit rate: the precision computes in 8 bits and the hardware
  // has such a rate (an A100 computes FP8 weights in 16 bits).
  [[nodiscard]] bool computes_in_8_bits() const { return precision->eight_bit_compute && hardware->flops_8bit > 0; }
};

// Throws std::invalid_argument naming what is wrong and what the catalog offers. The profile
// points into `catalog`, which must outlive it.
Profile parse_profile(std::string_view text, const Catalog& catalog = Catalog::builtin());

}  // namespace infergate::sim
