#include "sim/engine.hpp"

#include <gtest/gtest.h>

namespace infergate::sim {
namespace {

const HardwareSpec kDevice{.id = "dev", .memory_bytes = 100e9, .memory_bw = 1e12, .flops_16bit = 1e15};
// 10 GB of bf16 weights; 1,024 KV bytes per token (2 x 1 layer x 1 head x 256 x 2 bytes).
const ModelSpec kModel{.id = "m",
                       .params = 5e9,
                       .active_params = 5e9,
                       .layers = 1,
                       .hidden = 256,
                       .heads = 1,
                       .kv_heads = 1,
                       .head_dim = 256,
                       .max_context = 1 << 20};
constexpr Efficiency kIdeal{.memory = 1, .compute = 1, .step_overhead_s = 0, .memory_utilization = 1};

class EngineTest : public ::testing::Test {
 protected:
  PerfModel model{Profile{&kModel, Catalog::builtin().find_precision("bf16"), &kDevice, 1}, kIdeal};

  // Runs one step at the engine's own pace, returning what it emitted.
  std::vector<Emission> step(Engine& engine) {
    now = engine.start_step(now);
    return engine.finish_step();
  }
  std::int64_t now = 0;
};

TEST_F(EngineTest, FirstTokenAfterPrefillThenOnePerDecodeStep) {
  Engine engine(model, EngineLimits{8, 1.0});
  const SequenceId id = engine.submit(100, 3);
  auto e = step(engine);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].id, id);
  EXPECT_FALSE(e[0].finished);
  // The weight read dominates: 10 GB at 1 TB/s.
  EXPECT_EQ(now, 10'000'000);
  EXPECT_FALSE(step(engine)[0].finished);
  EXPECT_TRUE(step(engine)[0].finished);
  EXPECT_FALSE(engine.has_work());
  EXPECT_EQ(engine.counters().completed, 1u);
  EXPECT_EQ(engine.counters().generation_tokens, 3u);
  EXPECT_EQ(engine.counters().prompt_tokens, 100u);
  EXPECT_DOUBLE_EQ(engine.kv_used_bytes(), 0);
}

TEST_F(EngineTest, MaxNumSeqsQueuesTheRest) {
  Engine engine(model, EngineLimits{2, 1.0});
  engine.submit(10, 2);
  engine.submit(10, 2);
  const SequenceId third = engine.submit(10, 1);
  EXPECT_EQ(step(engine).size(), 2u);
  EXPECT_EQ(engine.running(), 2u);
  EXPECT_EQ(engine.waiting(), 1u);
  EXPECT_EQ(step(engine).size(), 2u);  // both finish
  auto e = step(engine);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].id, third);
  EXPECT_TRUE(e[0].finished);
}

TEST_F(EngineTest, KvBudgetQueuesWhatDoesNotFit) {
  // 100 GB x 0.9 utilisation... here 1.0: 100 GB - 10 GB weights = 90 GB = 87,890,625 tokens of KV.
  Engine engine(model, EngineLimits{1000, 1.0});
  const int half = static_cast<int>(engine.kv_budget_bytes() / 1024 / 2);
  EXPECT_TRUE(engine.fits(half, 1));
  EXPECT_FALSE(engine.fits(2 * half + 2, 1));
  engine.submit(half - 2, 2);
  engine.submit(half - 2, 2);
  engine.submit(half - 2, 2);
  step(engine);
  EXPECT_EQ(engine.running(), 2u);
  EXPECT_EQ(engine.waiting(), 1u);
  EXPECT_GT(engine.kv_used_bytes(), 0.99 * engine.kv_budget_bytes());
}

TEST_F(EngineTest, CancelFreesTheSlotAndTheCache) {
  Engine engine(model, EngineLimits{1, 1.0});
  const SequenceId first = engine.submit(10, 100);
  const SequenceId second = engine.submit(10, 1);
  step(engine);
  EXPECT_EQ(engine.waiting(), 1u);
  engine.cancel(first);
  EXPECT_EQ(engine.running(), 0u);
  EXPECT_EQ(engine.counters().cancelled, 1u);
  auto e = step(engine);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].id, second);
  EXPECT_DOUBLE_EQ(engine.kv_used_bytes(), 0);
}

TEST_F(EngineTest, CancelDuringAStepMeansNoEmission) {
  Engine engine(model, EngineLimits{4, 1.0});
  const SequenceId id = engine.submit(10, 5);
  engine.start_step(0);
  engine.cancel(id);
  EXPECT_TRUE(engine.finish_step().empty());
  engine.cancel(id);  // twice is harmless
  EXPECT_EQ(engine.counters().cancelled, 1u);
}

TEST_F(EngineTest, StepsGetLongerAsTheBatchGrows) {
  Engine one(model, EngineLimits{64, 1.0});
  Engine many(model, EngineLimits{64, 1.0});
  one.submit(1000, 10);
  for (int i = 0; i < 64; ++i) {
    many.submit(1000, 10);
  }
  const std::int64_t prefill_one = one.start_step(0);
  one.finish_step();
  const std::int64_t prefill_many = many.start_step(0);
  many.finish_step();
  EXPECT_GT(prefill_many, prefill_one);
  const std::int64_t decode_one = one.start_step(0);
  const std::int64_t decode_many = many.start_step(0);
  EXPECT_GT(decode_many, decode_one);
}

TEST_F(EngineTest, SpeedupDividesStepTime) {
  Engine slow(model, EngineLimits{8, 1.0});
  Engine fast(model, EngineLimits{8, 100.0});
  slow.submit(10, 1);
  fast.submit(10, 1);
  EXPECT_EQ(slow.start_step(0), 100 * fast.start_step(0));
}

}  // namespace
}  // namespace infergate::sim
