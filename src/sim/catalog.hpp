#pragma once
// The hardware, model shapes and precisions the simulator and the roofline know, each entry with
// the public source of its numbers. The built-in catalog is src/sim/catalog.yaml compiled into the
// binary; users add or replace entries with a file of the same schema (docs/simulator.md).
#include <deque>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "core/yaml_error.hpp"

namespace infergate::sim {

// Fractions of datasheet peaks that real engines reach, and fixed costs: calibrated per family
// against the measurements in calibration/measurements.csv.
struct Efficiency {
  double memory = 0.75;             // achieved / peak memory bandwidth while decoding
  double compute = 0.5;             // achieved / peak FLOP/s while prefilling
  double step_overhead_s = 0.0005;  // scheduling, kernel launches, sampling per step
  double memory_utilization = 0.9;  // share of device memory the engine may use (vLLM's default)
  double layer_latency_s = 0;       // SRAM dataflow: least time a layer takes per token
  double prefill_overhead_s = 0;    // more per step that prefills: attention metadata, longer launches
  double hop_latency_s = 0;         // SRAM dataflow: passing activations to the next chip
  // GPUs: a fixed cost per layer per step, the launch and ramp-up of the layer's kernels, which
  // CUDA graphs do not remove; it is why a small model reads its weights further from peak.
  double layer_overhead_s = 0;
  // `compute` where weights and activations compute in 8 bits (fp8, int8) on hardware with an
  // 8-bit rate, which engines reach a smaller share of; 0: as `compute`.
  double compute_8bit = 0;
  // GPUs: the share of a step's shorter part, memory or compute, that does not hide under the
  // longer. Near the ridge point (large decode batches, short prompts) a kernel's loads and its
  // arithmetic do not overlap perfectly; 0 is the pure roofline's max().
  double serial_share = 0;
  // GPUs: the share of the dense rates (decode_bandwidth, prefill_compute) at which a mixture of
  // experts' routed experts are read and multiplied. Their kernels run a few rows per expert
  // (sorted, padded to a tile), which streams weights less well than one dense product; 1 for
  // families without such rows.
  double expert_efficiency = 1;
};

// A factor as catalog.yaml spells it; the one list the catalog reader, `calibrate --fit`'s printer
// and the fit's factor names share.
struct EfficiencyField {
  const char* name;
  double Efficiency::*member;
  double unit;     // the member's value for 1 in the YAML: 1e-6 for the fields in microseconds
  double maximum;  // in the YAML's unit: 1 for the shares
  int decimals;    // as `calibrate --fit` prints it
  bool always;     // printed at its default too: every family has it
};
// Every factor, in catalog.yaml's order.
std::span<const EfficiencyField> efficiency_fields();
// The entry for `member`; throws std::logic_error for a member the list lacks.
const EfficiencyField& efficiency_field(double Efficiency::*member);

struct HardwareSpec {
  std::string id;    // as written in a profile: "h100"
  std::string name;  // "NVIDIA H100 SXM 80GB"
  std::string family;
  double memory_bytes = 0;            // device memory; for an SRAM dataflow chip, its on-chip SRAM
  double memory_bw = 0;               // bytes/s from that memory
  double flops_16bit = 0;             // dense FLOP/s in bf16/fp16
  double flops_8bit = 0;              // dense FP8 (or INT8) op/s; 0 where 8-bit weights compute in 16 bits
  double interconnect_bw = 0;         // bytes/s per device to its peers (NVLink, PCIe, chip links)
  double interconnect_latency_s = 0;  // fixed cost of one all-reduce across devices
  bool sram_dataflow = false;         // weights spread over as many chips as it takes, read from SRAM
  Efficiency efficiency;              // the family's
  std::string source;
};

struct ModelSpec {
  std::string id;
  std::string name;
  double params = 0;         // total parameters
  double active_params = 0;  // parameters used per token (equal to params for dense models)
  int experts = 0;           // mixture of experts: experts per layer (0 for dense models)
  int experts_per_token = 0;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int sliding_window = 0;  // tokens a sliding-window layer keeps in its KV cache; 0 when none
  int sliding_layers = 0;  // how many of the layers use the sliding window
  int max_context = 0;
  std::string source;
};

struct PrecisionSpec {
  std::string id;
  double weight_bytes_per_param = 0;
  double kv_bytes_per_element = 0;
  bool eight_bit_compute = false;  // matmuls run at the hardware's 8-bit rate where it has one
  std::string source;
};

class Catalog {
 public:
  // src/sim/catalog.yaml, parsed once.
  static const Catalog& builtin();

  // Adds the entries of a catalog file; an entry whose id exists replaces it. Throws YamlError
  // listing every problem (file:line:column, field) and leaves the catalog unchanged then.
  void add_yaml(const std::string& text, const std::string& source_name);
  void add_file(const std::string& path);

  [[nodiscard]] const std::deque<HardwareSpec>& hardware() const { return hardware_; }
  [[nodiscard]] const std::deque<ModelSpec>& models() const { return models_; }
  [[nodiscard]] const std::deque<PrecisionSpec>& precisions() const { return precisions_; }
  [[nodiscard]] const std::map<std::string, Efficiency, std::less<>>& families() const { return families_; }

  [[nodiscard]] const HardwareSpec* find_hardware(std::string_view id) const;
  [[nodiscard]] const ModelSpec* find_model(std::string_view id) const;
  [[nodiscard]] const PrecisionSpec* find_precision(std::string_view id) const;

 private:
  // Deques: profiles hold pointers to entries, which must stay put as entries are added.
  std::deque<HardwareSpec> hardware_;
  std::deque<ModelSpec> models_;
  std::deque<PrecisionSpec> precisions_;
  std::map<std::string, Efficiency, std::less<>> families_;
  std::set<std::string, std::less<>> own_efficiency_;  // hardware ids whose entry sets its own factors
};

}  // namespace infergate::sim
