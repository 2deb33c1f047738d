#include "sim/perf_model.hpp"

#include <gtest/gtest.h>

namespace infergate::sim {
namespace {

// A 31B dense model in bf16 (62 GB) on a device with 1 TB/s: the example every newcomer meets.
constexpr HardwareSpec kOneTbPerS{"tb", "1 TB/s device", 200e9, 1e12, 1e15, 0, 0, false, 0, "test"};
constexpr ModelSpec k31B{"m31", "31B", 31e9, 31e9, 60, 5376, 32, 16, 128, 0, 0, 8192, "test"};
constexpr Efficiency kIdeal{1.0, 1.0, 0.0, 1.0};

Profile profile_of(const ModelSpec& m, const char* precision, const HardwareSpec& h, int devices = 1) {
  return Profile{&m, find_precision(precision), &h, devices};
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

TEST(PerfModel, TensorParallelDividesTheWork) {
  const PerfModel one(profile_of(k31B, "bf16", kOneTbPerS, 1), kIdeal);
  const PerfModel two(profile_of(k31B, "bf16", kOneTbPerS, 2), kIdeal);
  EXPECT_NEAR(two.decode_step_seconds(1, 0), one.decode_step_seconds(1, 0) / 2, 1e-12);
  EXPECT_DOUBLE_EQ(two.kv_budget_bytes(), 400e9 - 62e9);
}

// Hand computed: Gemma 4 31B bf16 on H200, one stream at 2,048 tokens of context.
// KV: 60 layers x 16 KV heads x 256 x 2 (K and V) x 2 bytes = 983,040 B per token over all layers,
// 16,384 B per layer; 50 sliding layers hold 1,024 tokens, 10 global layers hold 2,048:
// 16,384 x (50 x 1,024 + 10 x 2,048) = 1,174,405,120 B. Step: (61.4e9 + 1.1744e9) B /
// (4.8e12 x 0.75) B/s + 0.5 ms = 17.8818 ms.
TEST(PerfModel, GemmaOnH200DecodeStepByHand) {
  const PerfModel model(Profile{find_model("gemma-4-31b"), find_precision("bf16"), find_hardware("h200"), 1});
  EXPECT_DOUBLE_EQ(model.kv_bytes_per_token(), 983040.0);
  EXPECT_DOUBLE_EQ(model.kv_bytes(2048), 1174405120.0);
  EXPECT_NEAR(model.decode_step_seconds(1, 2048), (61.4e9 + 1174405120.0) / 3.6e12 + 0.0005, 1e-9);
}

// Hand computed: Llama 3.1 8B bf16 on H100, prefill of 1,000 tokens. Linear: 2 x 8.03e9 x 1,000 =
// 1.606e13 FLOP; attention: 4 x 32 layers x 32 heads x 128 x (1,000 x 1,001 / 2) = 2.62406e11 FLOP.
// At 989.4 TFLOP/s x 0.5: 33.0e-3 s, above the 6.39 ms weight read; plus 0.5 ms.
TEST(PerfModel, LlamaPrefillOnH100ByHand) {
  const PerfModel model(Profile{find_model("llama-3.1-8b"), find_precision("bf16"), find_hardware("h100"), 1});
  const double flops = 2 * 8.03e9 * 1000 + 4.0 * 32 * 32 * 128 * (1000.0 * 1001 / 2);
  EXPECT_NEAR(model.prefill_seconds(1000), flops / (989.4e12 * 0.5) + 0.0005, 1e-9);
}

TEST(PerfModel, DecodeSlowsAsTheBatchGrows) {
  const PerfModel model(Profile{find_model("llama-3.1-8b"), find_precision("bf16"), find_hardware("h100"), 1});
  EXPECT_LT(model.decode_step_seconds(1, 1024), model.decode_step_seconds(16, 1024));
  EXPECT_LT(model.decode_step_seconds(16, 1024), model.decode_step_seconds(128, 1024));
  // ...but per token it gets far cheaper: batching is why servers batch.
  EXPECT_LT(model.decode_step_seconds(128, 1024) / 128, model.decode_step_seconds(1, 1024) / 4);
}

TEST(PerfModel, SramDataflowSpreadsWeightsOverEnoughChips) {
  const PerfModel model(Profile{find_model("llama-3.3-70b"), find_precision("fp8"), find_hardware("lpu"), 1});
  // 70.6 GB over chips holding 80% of 230 MB each.
  EXPECT_EQ(model.devices(), 384);
  EXPECT_GT(model.kv_budget_bytes(), 0);
  const double tokens_per_s = 1.0 / model.decode_step_seconds(1, 1024);
  EXPECT_GT(tokens_per_s, 100);
  EXPECT_LT(tokens_per_s, 1000);
}

}  // namespace
}  // namespace infergate::sim
