#include "sim/engine.hpp"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "sim/ideal_efficiency.hpp"

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

TEST_F(EngineTest, APromptOnlySequenceEndsWithItsPrefillGeneratingNothing) {
  Engine engine(model, EngineLimits{8, 1.0, 64});
  const SequenceId pooled = engine.submit(100, 0);
  const SequenceId beside = engine.submit(10, 2);
  auto e = step(engine);  // 64 of the pooled prompt's tokens: the budget
  EXPECT_TRUE(e.empty());
  e = step(engine);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].id, pooled);
  EXPECT_EQ(e[0].tokens, 0);
  EXPECT_TRUE(e[0].finished);
  EXPECT_EQ(e[1].id, beside);
  EXPECT_EQ(e[1].tokens, 1);
  EXPECT_FALSE(e[1].finished);
  EXPECT_EQ(engine.counters().prompt_tokens, 110u);
  EXPECT_EQ(engine.counters().generation_tokens, 1u);
  EXPECT_EQ(engine.counters().completed, 1u);
  EXPECT_EQ(engine.running(), 1u);
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

TEST_F(EngineTest, FitsMeansTheWholeSequenceFitsTheBudget) {
  Engine engine(model, EngineLimits{1000, 1.0});
  const int budget_tokens = static_cast<int>(engine.kv_budget_bytes() / 1024);
  EXPECT_TRUE(engine.fits(budget_tokens / 2, 1));
  EXPECT_FALSE(engine.fits(budget_tokens, 1));
  EXPECT_THROW(engine.submit(budget_tokens, 1), std::invalid_argument);
}

// Room for 1,600 tokens (100 blocks) of KV cache after the 10 GB of weights.
const HardwareSpec kSmallDevice{
    .id = "small", .memory_bytes = 10e9 + 1600 * 1024, .memory_bw = 1e12, .flops_16bit = 1e15};
// As kDevice, but so slow at compute that a step's time shows the tokens it computes.
const HardwareSpec kSlowDevice{.id = "slow", .memory_bytes = 100e9, .memory_bw = 1e12, .flops_16bit = 1e12};

class SmallEngineTest : public EngineTest {
 protected:
  PerfModel small{Profile{&kModel, Catalog::builtin().find_precision("bf16"), &kSmallDevice, 1}, kIdeal};
  PerfModel slow{Profile{&kModel, Catalog::builtin().find_precision("bf16"), &kSlowDevice, 1}, kIdeal};
};

TEST_F(SmallEngineTest, KvCacheGrowsWithTheSequenceAndAdmitsWhatItsPromptNeeds) {
  Engine engine(small, EngineLimits{8, 1.0});
  EXPECT_DOUBLE_EQ(engine.kv_budget_bytes(), 1600 * 1024);
  engine.submit(100, 20);
  step(engine);
  EXPECT_DOUBLE_EQ(engine.kv_used_bytes(), 7 * 16 * 1024);  // 100 tokens in 7 blocks
  for (int i = 0; i < 13; ++i) {
    step(engine);
  }
  EXPECT_DOUBLE_EQ(engine.kv_used_bytes(), 8 * 16 * 1024);  // 113 tokens computed
}

TEST_F(SmallEngineTest, PreemptsTheLatestSequenceWhenTheCacheRunsOutAndRecomputesIt) {
  Engine engine(small, EngineLimits{8, 1.0});
  // Each fits alone (70 blocks at the end) but not both (140 of 100).
  const SequenceId a = engine.submit(512, 600);
  const SequenceId b = engine.submit(512, 600);
  std::map<SequenceId, int> tokens;
  std::map<SequenceId, int> finished;
  int steps_with_b_idle = 0;
  while (engine.has_work()) {
    bool b_emitted = false;
    for (const Emission& e : step(engine)) {
      tokens[e.id] += e.tokens;
      finished[e.id] += e.finished ? 1 : 0;
      b_emitted = b_emitted || e.id == b;
    }
    if (!b_emitted && tokens[b] > 0 && tokens[b] < 600) {
      ++steps_with_b_idle;
    }
    ASSERT_LE(engine.kv_used_bytes(), engine.kv_budget_bytes());
  }
  EXPECT_GE(engine.counters().preemptions, 1u);
  EXPECT_GT(steps_with_b_idle, 0);  // b waited out a's end, then resumed
  EXPECT_EQ(tokens[a], 600);
  EXPECT_EQ(tokens[b], 600);
  EXPECT_EQ(finished[a], 1);
  EXPECT_EQ(finished[b], 1);
  EXPECT_EQ(engine.counters().generation_tokens, 1200u);
  EXPECT_EQ(engine.counters().prompt_tokens, 1024u);  // a recomputed prompt is not counted twice
  EXPECT_DOUBLE_EQ(engine.kv_used_bytes(), 0);
}

TEST_F(EngineTest, ChunkedPrefillKeepsTheRunningSequencesDecoding) {
  Engine engine(model, EngineLimits{8, 1.0, 256});
  const SequenceId a = engine.submit(10, 50);
  ASSERT_EQ(step(engine).size(), 1u);
  const SequenceId b = engine.submit(1000, 5);
  // a decodes one token per step; b prefills 255 tokens per step, so its first token comes in the
  // fourth step.
  for (int i = 1; i <= 4; ++i) {
    auto e = step(engine);
    ASSERT_FALSE(e.empty());
    EXPECT_EQ(e[0].id, a);
    if (i < 4) {
      EXPECT_EQ(e.size(), 1u) << "step " << i;
    } else {
      ASSERT_EQ(e.size(), 2u);
      EXPECT_EQ(e[1].id, b);
    }
  }
  EXPECT_EQ(engine.counters().prompt_tokens, 1010u);
}

TEST_F(SmallEngineTest, ChunksAreShorterStepsThanAWholePrefill) {
  Engine whole(slow, EngineLimits{8, 1.0, 8192});
  Engine chunked(slow, EngineLimits{8, 1.0, 512});
  whole.submit(2048, 1);
  chunked.submit(2048, 1);
  const std::int64_t whole_step = whole.start_step(0);
  EXPECT_EQ(whole.finish_step().size(), 1u);
  std::int64_t chunked_total = 0;
  int chunks = 0;
  while (chunked.has_work()) {
    const std::int64_t chunk = chunked.start_step(0);
    EXPECT_LT(chunk, whole_step);
    chunked_total += chunk;
    chunked.finish_step();
    ++chunks;
  }
  EXPECT_EQ(chunks, 4);
  // Later chunks attend to the earlier ones: the work adds up to at least the whole prefill's.
  EXPECT_GE(chunked_total, whole_step);
}

std::vector<std::uint64_t> chain(std::uint64_t seed, int blocks) {
  std::vector<std::uint64_t> hashes;
  for (int i = 0; i < blocks; ++i) {
    hashes.push_back(seed * 1000 + static_cast<std::uint64_t>(i));
  }
  return hashes;
}

TEST_F(SmallEngineTest, PrefixCacheSkipsTheSharedBlocksOfAPrompt) {
  Engine engine(slow, EngineLimits{8, 1.0});
  engine.submit(100, 1, chain(1, 6));
  const std::int64_t first = engine.start_step(0);
  engine.finish_step();
  engine.submit(100, 1, chain(1, 6));
  const std::int64_t second = engine.start_step(first) - first;
  engine.finish_step();
  EXPECT_EQ(engine.counters().prefix_queried_tokens, 200u);
  EXPECT_EQ(engine.counters().prefix_hit_tokens, 96u);
  EXPECT_LT(second * 10, first);  // 4 tokens computed instead of 100
  EXPECT_DOUBLE_EQ(engine.kv_used_bytes(), 0);

  engine.submit(100, 1, chain(2, 6));  // another prompt: nothing shared
  engine.start_step(0);
  engine.finish_step();
  EXPECT_EQ(engine.counters().prefix_hit_tokens, 96u);
}

TEST_F(SmallEngineTest, PrefixCacheAlwaysComputesThePromptsLastToken) {
  Engine engine(slow, EngineLimits{8, 1.0});
  engine.submit(96, 1, chain(1, 6));
  step(engine);
  engine.submit(96, 1, chain(1, 6));
  step(engine);
  EXPECT_EQ(engine.counters().prefix_hit_tokens, 80u);  // 5 of 6 blocks: the sixth holds the last token
}

TEST_F(SmallEngineTest, RunningSequencesShareCachedBlocks) {
  Engine engine(small, EngineLimits{8, 1.0});
  engine.submit(330, 1, chain(1, 20));
  step(engine);
  engine.submit(330, 50, chain(1, 20));
  engine.submit(330, 50, chain(1, 20));
  step(engine);
  // Both hold the 20 shared blocks once, plus one block each of their own.
  EXPECT_DOUBLE_EQ(engine.kv_used_bytes(), 22 * 16 * 1024);
}

TEST_F(SmallEngineTest, CachedBlocksGiveWayWhenMemoryIsWanted) {
  Engine engine(small, EngineLimits{8, 1.0});
  engine.submit(800, 1, chain(1, 50));
  step(engine);
  EXPECT_DOUBLE_EQ(engine.kv_used_bytes(), 0);  // cached, but free for anyone who needs it
  engine.submit(1500, 1);
  step(engine);  // needs 94 of 100 blocks: most of the cache is evicted
  engine.submit(800, 1, chain(1, 50));
  step(engine);
  EXPECT_LT(engine.counters().prefix_hit_tokens, 800u);
}

TEST_F(SmallEngineTest, PrefixCachingCanBeTurnedOff) {
  Engine engine(slow, EngineLimits{8, 1.0, 8192, false});
  engine.submit(100, 1, chain(1, 6));
  step(engine);
  engine.submit(100, 1, chain(1, 6));
  step(engine);
  EXPECT_EQ(engine.counters().prefix_hit_tokens, 0u);
  EXPECT_EQ(engine.counters().prefix_queried_tokens, 0u);
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
