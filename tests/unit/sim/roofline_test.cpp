#include "sim/roofline.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace infergate::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

RooflineResult run(const char* profile, RooflineQuery query = {}) {
  return roofline(parse_profile(profile), query);
}

// The classic: 31B parameters in 16 bits are about 62 GB; at 1 TB/s one stream cannot pass about
// 16 tokens/s.
TEST(Roofline, ThirtyOneBillionParametersAtOneTerabytePerSecond) {
  Catalog c = Catalog::builtin();
  c.add_yaml(
      "hardware:\n  - {id: tb, memory_gb: 80, bandwidth_gb_s: 1000, tflops_16bit: 400}\n"
      "models:\n  - {id: m31, params_b: 31, layers: 60, hidden: 5376, heads: 32, kv_heads: 16,"
      " head_dim: 128, max_context: 8192}\n",
      "t.yaml");
  const RooflineQuery query{.context = 1024};
  const RooflineResult r = roofline(parse_profile("m31:fp16@tb", c), query);
  EXPECT_DOUBLE_EQ(r.weight_bytes, 62e9);
  EXPECT_NEAR(r.ideal_decode_tps, 16.13, 0.01);
  EXPECT_LT(r.decode_tps, r.ideal_decode_tps);  // real engines reach a fraction of the peak
  EXPECT_EQ(r.decode_step.bound(), Bound::bandwidth);
  const std::string words = explain(r, query);
  EXPECT_THAT(words, HasSubstr("31.0 billion parameters x 2 bytes each = 62.0 GB"));
  EXPECT_THAT(words, HasSubstr("one stream cannot pass 1.00 TB/s / 62.0 GB = 16.1 tokens/s")) << words;
}

// The words name the factors the numbers used: the per-layer share of the fixed cost, the serial
// share of memory and compute, the 8-bit rate at the 8-bit share for a precision that computes
// in 8 bits (for attention, only over an 8-bit KV cache), and the routed experts' share.
TEST(Roofline, ExplainsEachFactorItUses) {
  Catalog c = Catalog::builtin();
  c.add_yaml(
      "families:\n  mine: {decode_bandwidth: 0.8, prefill_compute: 0.6, prefill_compute_8bit: 0.4,"
      " step_overhead_us: 100, layer_overhead_us: 50, serial_share: 0.3, expert_efficiency: 0.5}\n"
      "hardware:\n  - {id: tb, family: mine, memory_gb: 80, bandwidth_gb_s: 1000, tflops_16bit: 400,"
      " tflops_8bit: 800}\n",
      "t.yaml");
  const std::string fp8 = explain(roofline(parse_profile("llama-3.1-8b:fp8@tb", c), {}), {});
  EXPECT_THAT(fp8, HasSubstr("With 1.70 ms of fixed cost per step (50.0 us per layer for 32 layers)")) << fp8;
  EXPECT_THAT(fp8, HasSubstr("The two overlap but for 30% of the shorter")) << fp8;
  EXPECT_THAT(fp8, HasSubstr("in the linear layers at 40% of 1 x 800.0 trillion FLOP/s")) << fp8;
  EXPECT_THAT(fp8, HasSubstr("FLOP of attention at 40% of 1 x 800.0 trillion FLOP/s")) << fp8;
  const std::string kv16 = explain(roofline(parse_profile("llama-3.1-8b:fp8-kv16@tb", c), {}), {});
  EXPECT_THAT(kv16, HasSubstr("in the linear layers at 40% of 1 x 800.0 trillion FLOP/s")) << kv16;
  EXPECT_THAT(kv16, HasSubstr("FLOP of attention at 60% of 1 x 400.0 trillion FLOP/s")) << kv16;
  const std::string bf16 = explain(roofline(parse_profile("llama-3.1-8b:bf16@tb", c), {}), {});
  EXPECT_THAT(bf16, HasSubstr("in the linear layers at 60% of 1 x 400.0 trillion FLOP/s")) << bf16;
  EXPECT_THAT(bf16, Not(HasSubstr("routed experts"))) << bf16;
  // Mixtral in 8 bits: a token's two experts of eight hold a quarter of (46.7B - 12.9B) / 0.75.
  const std::string moe = explain(roofline(parse_profile("mixtral-8x7b:fp8@tb", c), {}), {});
  EXPECT_THAT(moe, HasSubstr("The routed experts' 11.3 GB of those bytes, and their share of the FLOPs, go at 50%"))
      << moe;
}

TEST(Roofline, SaysWhenTheWeightsDoNotFitAndHowManyDevicesTheyNeed) {
  // 70.6B in bf16 is 141 GB: more than one H100 (72 GB usable), two hold it with 8K of context.
  const RooflineResult one = run("llama-3.3-70b:bf16@h100");
  EXPECT_FALSE(one.fits);
  EXPECT_EQ(one.devices_needed, 2);
  EXPECT_EQ(one.profile.devices, 2);
  EXPECT_THAT(explain(one, {}), HasSubstr("do not fit on 1 device: it takes 2"));
  const RooflineResult four = run("llama-3.3-70b:bf16@h100x4");
  EXPECT_TRUE(four.fits);
  EXPECT_GT(four.max_sequences, one.max_sequences);
  EXPECT_GT(four.decode_step.interconnect, 0);
}

TEST(Roofline, AModelNoDeviceCountHoldsIsAClearError) {
  Catalog c = Catalog::builtin();
  c.add_yaml(
      "models:\n  - {id: huge, params_b: 1000000, layers: 200, hidden: 65536, heads: 128, kv_heads: 8,"
      " head_dim: 128, max_context: 8192}\n",
      "t.yaml");
  try {
    roofline(parse_profile("huge:bf16@h100", c), {});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("huge:bf16@h100 does not fit on 4096 devices with 8192 tokens of context"));
  }
}

TEST(Roofline, KvCacheAndSequencesThatFitByHand) {
  // Llama 3.1 8B: 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 131,072 B per token; 8,192 tokens
  // hold 1.07 GB. H100: 72 GB usable - 16.06 GB of weights = 55.94 GB: 52 sequences.
  const RooflineResult r = run("llama-3.1-8b:bf16@h100");
  EXPECT_DOUBLE_EQ(r.kv_bytes_per_token, 131072);
  EXPECT_DOUBLE_EQ(r.kv_bytes_per_sequence, 131072.0 * 8192);
  EXPECT_EQ(r.max_sequences, 52);
  EXPECT_EQ(r.batch, 52);
  // Each of the 52 reads its own 1.07 GB of KV per step, so the batch gains less than 52x.
  EXPECT_GT(r.batch_tps, 10 * r.decode_tps);
  EXPECT_LT(r.batch_tps, 52 * r.decode_tps);
  EXPECT_EQ(r.batch_bound, Bound::capacity);
  EXPECT_EQ(r.prefill_step.bound(), Bound::compute);
}

TEST(Roofline, ShortContextsBatchUntilComputeBinds) {
  const RooflineResult r = run("llama-3.1-8b:fp8@h200", RooflineQuery{.context = 256, .max_batch = 4096});
  EXPECT_EQ(r.batch, 4096);
  EXPECT_EQ(r.batch_bound, Bound::compute);
}

TEST(Roofline, DataflowChipsAreBoundByLayerLatencyNotSramBandwidth) {
  const RooflineResult r = run("llama-3.3-70b:int8@lpu");
  EXPECT_EQ(r.profile.devices, 384);
  EXPECT_TRUE(r.fits);
  EXPECT_EQ(r.decode_step.bound(), Bound::layer_latency);
  EXPECT_GT(r.ideal_decode_tps, 100 * r.decode_tps);  // the pure bandwidth roofline is far off
  EXPECT_GT(r.decode_tps, 150);
  EXPECT_LT(r.decode_tps, 600);
  EXPECT_THAT(explain(r, {}), HasSubstr("A token crosses 384 chips"));
}

TEST(Roofline, MixtureOfExpertsDecodesAtItsActiveSize) {
  const RooflineResult moe = run("mixtral-8x7b:fp8@h100");
  const RooflineResult dense = run("llama-3.3-70b:fp8@h100");
  EXPECT_NEAR(moe.ideal_decode_tps, 3.35e12 / 12.9e9, 0.1);
  EXPECT_GT(moe.decode_tps, 3 * dense.decode_tps);
}

}  // namespace
}  // namespace infergate::sim
