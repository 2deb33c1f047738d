#include "sim/perf_model.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/ideal_efficiency.hpp"

namespace infergate::sim {
namespace {

const Catalog& catalog() {
  return Catalog::builtin();
}

// A 31B dense model in bf16 (62 GB) on a device with 1 TB/s: the example every newcomer meets.
const HardwareSpec kOneTbPerS{.id = "tb", .memory_bytes = 200e9, .memory_bw = 1e12, .flops_16bit = 1e15};
const ModelSpec k31B{.id = "m31",
                     .params = 31e9,
                     .active_params = 31e9,
                     .layers = 60,
                     .hidden = 5376,
                     .heads = 32,
                     .kv_heads = 16,
                     .head_dim = 128,
                     .max_context = 8192};
// The factors the hand computations below were done with, independent of the calibrated ones.
constexpr Efficiency kRough{.memory = 0.75, .compute = 0.5, .step_overhead_s = 0.0005, .memory_utilization = 0.9};

Profile profile_of(const ModelSpec& m, const char* precision, const HardwareSpec& h, int devices = 1) {
  return Profile{&m, catalog().find_precision(precision), &h, devices};
}

Profile builtin(const char* model, const char* precision, const char* hardware, int devices = 1) {
  return Profile{catalog().find_model(model), catalog().find_precision(precision), catalog().find_hardware(hardware),
                 devices};
}

TEST(PerfModel, SixtyTwoGigabytesAtOneTerabytePerSecondIsSixteenTokensPerSecond) {
  const PerfModel model(profile_of(k31B, "bf16", kOneTbPerS), kIdeal);
  EXPECT_DOUBLE_EQ(model.weight_bytes(), 62e9);
  const double step = model.decode_step_seconds(1, 0);
  EXPECT_NEAR(step, 0.062, 1e-9);
  EXPECT_NEAR(1.0 / step, 16.13, 0.01);
}

TEST(PerfModel, PrecisionScalesTheWeightsAndTheCeiling) {
  const PerfModel fp8(profile_of(k31B, "fp8", kOneTbPerS), kIdeal);
  const PerfModel int4(profile_of(k31B, "int4", kOneTbPerS), kIdeal);
  EXPECT_DOUBLE_EQ(fp8.weight_bytes(), 31e9);
  EXPECT_NEAR(1.0 / fp8.decode_step_seconds(1, 0), 32.26, 0.01);
  EXPECT_DOUBLE_EQ(int4.weight_bytes(), 31e9 * 0.5625);
}

TEST(PerfModel, HardwareWithoutAnInterconnectCannotRunTensorParallel) {
  EXPECT_THROW(PerfModel(profile_of(k31B, "bf16", kOneTbPerS, 2), kIdeal), std::invalid_argument);
}

// Two devices halve the weight read and add two all-reduces per layer. By hand for one token:
// message 5,376 x 2 bytes; ring over 2 devices moves 2 x 1/2 of it over 450 GB/s each way:
// 10,752 / 450e9 s = 23.89 ns, plus 10 us latency; 120 of them = 1.2029 ms.
TEST(PerfModel, TensorParallelHalvesTheReadAndAddsAllReduces) {
  HardwareSpec linked = kOneTbPerS;
  linked.interconnect_bw = 900e9;
  linked.interconnect_latency_s = 10e-6;
  const PerfModel one(profile_of(k31B, "bf16", linked, 1), kIdeal);
  const PerfModel two(profile_of(k31B, "bf16", linked, 2), kIdeal);
  EXPECT_DOUBLE_EQ(one.allreduce_seconds(1), 0);
  const double allreduce = 120 * (10e-6 + 10752.0 / 450e9);
  EXPECT_NEAR(two.allreduce_seconds(1), allreduce, 1e-12);
  EXPECT_NEAR(two.decode_step_seconds(1, 0), one.decode_step_seconds(1, 0) / 2 + allreduce, 1e-12);
  EXPECT_DOUBLE_EQ(two.kv_budget_bytes(), 400e9 - 62e9);
  // A bigger batch sends bigger messages.
  EXPECT_GT(two.allreduce_seconds(256), two.allreduce_seconds(1));
}

// Mixtral 8x7B: 46.7B parameters, 12.9B active. One token reads only its two experts; a large
// batch touches every expert and reads all 46.7B.
TEST(PerfModel, MixtureOfExpertsReadsTheExpertsItsTokensUse) {
  const PerfModel model(builtin("mixtral-8x7b", "bf16", "h200"), kIdeal);
  EXPECT_NEAR(model.weight_bytes_read(1), 12.9e9 * 2, 1e3);
  EXPECT_GT(model.weight_bytes_read(4), model.weight_bytes_read(1));
  EXPECT_NEAR(model.weight_bytes_read(512), 46.7e9 * 2, 1e3);
  EXPECT_DOUBLE_EQ(model.weight_bytes(), 46.7e9 * 2);
}

// Hand computed: Gemma 4 31B bf16 on H200, one stream at 2,048 tokens of context.
// KV: 60 layers x 16 KV heads x 256 x 2 (K and V) x 2 bytes = 983,040 B per token over all layers,
// 16,384 B per layer; 50 sliding layers hold 1,024 tokens, 10 global layers hold 2,048:
// 16,384 x (50 x 1,024 + 10 x 2,048) = 1,174,405,120 B. Step: (61.4e9 + 1.1744e9) B /
// (4.8e12 x 0.75) B/s + 0.5 ms = 17.8818 ms.
TEST(PerfModel, GemmaOnH200DecodeStepByHand) {
  const PerfModel model(builtin("gemma-4-31b", "bf16", "h200"), kRough);
  EXPECT_DOUBLE_EQ(model.kv_bytes_per_token(), 983040.0);
  EXPECT_DOUBLE_EQ(model.kv_bytes(2048), 1174405120.0);
  EXPECT_NEAR(model.decode_step_seconds(1, 2048), (61.4e9 + 1174405120.0) / 3.6e12 + 0.0005, 1e-9);
}

// Hand computed: Llama 3.1 8B bf16 on H100, prefill of 1,000 tokens. Linear: 2 x 8.03e9 x 1,000 =
// 1.606e13 FLOP; attention: 4 x 32 layers x 32 heads x 128 x (1,000 x 1,001 / 2) = 2.62406e11 FLOP.
// At 989.4 TFLOP/s x 0.5: 33.0e-3 s, above the 6.39 ms weight read; plus 0.5 ms.
TEST(PerfModel, LlamaPrefillOnH100ByHand) {
  const PerfModel model(builtin("llama-3.1-8b", "bf16", "h100"), kRough);
  const double flops = 2 * 8.03e9 * 1000 + 4.0 * 32 * 32 * 128 * (1000.0 * 1001 / 2);
  EXPECT_NEAR(model.prefill_seconds(1000), flops / (989.4e12 * 0.5) + 0.0005, 1e-9);
}

TEST(PerfModel, DecodeSlowsAsTheBatchGrows) {
  const PerfModel model(builtin("llama-3.1-8b", "bf16", "h100"));
  EXPECT_LT(model.decode_step_seconds(1, 1024), model.decode_step_seconds(16, 1024));
  EXPECT_LT(model.decode_step_seconds(16, 1024), model.decode_step_seconds(128, 1024));
  // ...but per token it gets far cheaper: batching is why servers batch.
  EXPECT_LT(model.decode_step_seconds(128, 1024) / 128, model.decode_step_seconds(1, 1024) / 4);
}

TEST(PerfModel, SramDataflowSpreadsWeightsOverEnoughChips) {
  const PerfModel model(builtin("llama-3.3-70b", "fp8", "lpu"));
  // 70.6 GB over chips holding 80% of 230 MB each.
  EXPECT_EQ(model.devices(), 384);
  EXPECT_GT(model.kv_budget_bytes(), 0);
  const double tokens_per_s = 1.0 / model.decode_step_seconds(1, 1024);
  EXPECT_GT(tokens_per_s, 100);
  EXPECT_LT(tokens_per_s, 1000);
}

// A GPU step pays the family's fixed cost once per layer on top of the per-step one: 60 layers at
// 50 us add 3 ms to the 62 ms weight read and the 0.5 ms step overhead, with tensor parallelism too,
// since every device runs every layer. A step that prefills adds the prefill overhead once.
TEST(PerfModel, LayerOverheadIsPaidOncePerLayerPerStep) {
  Efficiency e = kIdeal;
  e.step_overhead_s = 0.5e-3;
  e.layer_overhead_s = 50e-6;
  e.prefill_overhead_s = 1e-3;
  const PerfModel model(profile_of(k31B, "bf16", kOneTbPerS), e);
  EXPECT_NEAR(model.decode_step_seconds(1, 0), 0.062 + 0.5e-3 + 60 * 50e-6, 1e-9);
  EXPECT_NEAR(model.step_time(PerfModel::prefill_shape(1)).overhead, 0.5e-3 + 60 * 50e-6 + 1e-3, 1e-12);
  const PerfModel two(builtin("llama-3.1-8b", "bf16", "h100", 2), e);
  EXPECT_NEAR(two.step_time(two.decode_shape(1, 0)).overhead, 0.5e-3 + 32 * 50e-6, 1e-12);
}

// An 8-bit precision runs its arithmetic against the 8-bit rate at the 8-bit share, where the
// hardware has that rate; without one (A100), or without an 8-bit share, the 16-bit ones apply.
// By hand: a 2,048-token prefill of Llama 3.1 8B is 2 x 8.03e9 x 2,048 FLOP plus attention.
TEST(PerfModel, EightBitComputeHasItsOwnShareOfTheEightBitRate) {
  Efficiency e = kIdeal;
  e.compute = 0.6;
  e.compute_8bit = 0.4;
  const PerfModel h100(builtin("llama-3.1-8b", "fp8", "h100"), e);
  EXPECT_DOUBLE_EQ(h100.peak_flops(), 1978.9e12);
  EXPECT_DOUBLE_EQ(h100.compute_efficiency(), 0.4);
  const StepShape prompt = PerfModel::prefill_shape(2048);
  const double attention = 4.0 * 32 * 32 * 128 * (2048.0 * 2049 / 2);
  EXPECT_NEAR(h100.step_time(prompt).compute, (2 * 8.03e9 * 2048 + attention) / (1978.9e12 * 0.4), 1e-9);
  const PerfModel a100(builtin("llama-3.1-8b", "fp8", "a100"), e);
  EXPECT_DOUBLE_EQ(a100.peak_flops(), 312e12);
  EXPECT_DOUBLE_EQ(a100.compute_efficiency(), 0.6);
  EXPECT_DOUBLE_EQ(PerfModel(builtin("llama-3.1-8b", "bf16", "h100"), e).compute_efficiency(), 0.6);
  e.compute_8bit = 0;
  EXPECT_DOUBLE_EQ(PerfModel(builtin("llama-3.1-8b", "fp8", "h100"), e).compute_efficiency(), 0.6);
}

// Attention runs at the KV cache's width: over fp8-kv16's 16-bit cache it takes the 16-bit rate
// at the 16-bit share while the linear layers take the 8-bit ones; over fp8's 8-bit cache both
// compute in 8 bits. By hand, for a 32,768-token prompt of Llama 3.1 8B on an H100: 5.263e14 FLOP
// of linear layers and 4 x 32 x 32 x 128 x (32,768 x 32,769 / 2) = 2.815e14 of attention.
TEST(PerfModel, AttentionOverASixteenBitCacheComputesInSixteenBits) {
  Efficiency e = kIdeal;
  e.compute = 0.6;
  e.compute_8bit = 0.4;
  const StepShape prompt = PerfModel::prefill_shape(32768);
  const double linear = 2 * 8.03e9 * 32768;
  const double attention = 4.0 * 32 * 32 * 128 * (32768.0 * 32769 / 2);
  const PerfModel kv16(builtin("llama-3.1-8b", "fp8-kv16", "h100"), e);
  EXPECT_DOUBLE_EQ(kv16.linear_flops(prompt), linear);
  EXPECT_DOUBLE_EQ(kv16.attention_flops(prompt), attention);
  EXPECT_DOUBLE_EQ(kv16.attention_peak_flops(), 989.4e12);
  EXPECT_DOUBLE_EQ(kv16.attention_compute_efficiency(), 0.6);
  EXPECT_NEAR(kv16.step_time(prompt).compute, linear / (1978.9e12 * 0.4) + attention / (989.4e12 * 0.6), 1e-9);
  const PerfModel kv8(builtin("llama-3.1-8b", "fp8", "h100"), e);
  EXPECT_DOUBLE_EQ(kv8.attention_peak_flops(), 1978.9e12);
  EXPECT_NEAR(kv8.step_time(prompt).compute, (linear + attention) / (1978.9e12 * 0.4), 1e-9);
}

// Routed experts at half the dense rates, by hand on Mixtral 8x7B at 1 TB/s and 1 PFLOP/s: its
// experts hold (46.7B - 12.9B) / (1 - 2/8) = 45.07B parameters, of which one token uses a quarter
// (11.27B). A decode step reads 12.9B x 2 bytes, the experts' part counted twice: 48.3 ms instead of
// 25.8; a prompt computes 2 x (12.9B + 11.27B) FLOP per token plus attention. A dense model's
// steps do not change.
TEST(PerfModel, RoutedExpertsRunAtTheirOwnShareOfTheDenseRates) {
  Efficiency e = kIdeal;
  e.expert_efficiency = 0.5;
  const PerfModel model(profile_of(*catalog().find_model("mixtral-8x7b"), "bf16", kOneTbPerS), e);
  const double experts = (46.7e9 - 12.9e9) / 0.75;
  const StepShape one = model.decode_shape(1, 0);
  EXPECT_NEAR(model.expert_bytes_read(1), experts / 4 * 2, 1e3);
  EXPECT_NEAR(model.expert_flops(one), 2 * experts / 4, 1e3);
  EXPECT_NEAR(model.step_time(one).memory, (12.9e9 + experts / 4) * 2 / 1e12, 1e-12);
  const StepShape prompt = PerfModel::prefill_shape(1000);
  const double attention = 4.0 * 32 * 32 * 128 * (1000.0 * 1001 / 2);
  EXPECT_NEAR(model.step_time(prompt).compute, (2 * (12.9e9 + experts / 4) * 1000 + attention) / 1e15, 1e-12);
  const PerfModel dense(profile_of(k31B, "bf16", kOneTbPerS), e);
  const PerfModel ideal(profile_of(k31B, "bf16", kOneTbPerS), kIdeal);
  EXPECT_EQ(dense.expert_bytes_read(1), 0);
  EXPECT_DOUBLE_EQ(dense.step_seconds(prompt), ideal.step_seconds(prompt));
  EXPECT_DOUBLE_EQ(dense.step_seconds(dense.decode_shape(4, 100)), ideal.step_seconds(ideal.decode_shape(4, 100)));
}

// Of a step's shorter part, the serial share is added to the longer. By hand on the 31B model
// (1 TB/s, 1 PFLOP/s): a decode step of 4 sequences reads 62 GB (62 ms) and computes
// 4 x 62 GFLOP (0.248 ms); a 1,000-token prompt computes 62 TFLOP plus attention (62.98 ms) and
// reads 62 GB (62 ms). Share 0.5: 62.124 ms and 93.98 ms.
TEST(PerfModel, TheSerialShareAddsPartOfTheShorterPartToTheLonger) {
  Efficiency e = kIdeal;
  e.serial_share = 0.5;
  const PerfModel model(profile_of(k31B, "bf16", kOneTbPerS), e);
  const PerfModel ideal(profile_of(k31B, "bf16", kOneTbPerS), kIdeal);
  const StepShape decode = model.decode_shape(4, 0);
  EXPECT_NEAR(model.step_time(decode).memory, 62e-3, 1e-12);
  EXPECT_NEAR(model.step_time(decode).compute, 0.248e-3, 1e-12);
  EXPECT_NEAR(model.step_time(decode).serial, 0.5 * 0.248e-3, 1e-12);
  EXPECT_NEAR(model.step_seconds(decode), 62e-3 + 0.5 * 0.248e-3, 1e-12);
  EXPECT_NEAR(ideal.step_seconds(decode), 62e-3, 1e-12);
  const StepShape prompt = PerfModel::prefill_shape(1000);
  const double attention = 4.0 * 60 * 32 * 128 * (1000.0 * 1001 / 2);
  const double compute = (2 * 31e9 * 1000 + attention) / 1e15;
  EXPECT_NEAR(model.step_seconds(prompt), compute + 0.5 * 62e-3, 1e-12);
  EXPECT_NEAR(ideal.step_seconds(prompt), compute, 1e-12);
}

// Per-token latency on the pipeline, by hand: Llama 2 7B in int8 (6.74 GB) needs
// ceil(6.74e9 / 184e6) = 37 chips. Each chip reads 182 MB at 80 TB/s (2.28 us), but its
// 32/37 of the layers take 40 us each (34.6 us); plus a 1 us hop: 37 x 35.6 us = 1.317 ms per token.
// SRAM bandwidth alone would predict 37 x 3.28 us = 0.121 ms, ten times too fast.
TEST(PerfModel, DataflowLatencyComesFromPerChipWorkAndHops) {
  const HardwareSpec chip = *catalog().find_hardware("lpu");
  Efficiency e = kIdeal;
  e.layer_latency_s = 40e-6;
  e.hop_latency_s = 1e-6;
  const PerfModel model(Profile{catalog().find_model("llama-2-7b"), catalog().find_precision("int8"), &chip, 1}, e);
  EXPECT_EQ(model.devices(), 37);
  EXPECT_NEAR(model.decode_step_seconds(1, 0), 37 * (32.0 / 37 * 40e-6 + 1e-6), 1e-9);
  e.layer_latency_s = 0;
  const PerfModel bandwidth_only(
      Profile{catalog().find_model("llama-2-7b"), catalog().find_precision("int8"), &chip, 1}, e);
  EXPECT_NEAR(bandwidth_only.decode_step_seconds(1, 0), 37 * (6.74e9 / 37 / 80e12 + 1e-6), 1e-9);
}

}  // namespace
}  // namespace infergate::sim
