#include "sim/catalog.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/yaml_error.hpp"

namespace infergate::sim {
namespace {

using ::testing::HasSubstr;

TEST(Catalog, EveryBuiltInEntryCitesItsOwnSource) {
  const Catalog& c = Catalog::builtin();
  for (const auto& h : c.hardware()) {
    EXPECT_THAT(h.source, ::testing::Not(HasSubstr("catalog.yaml"))) << h.id;
    EXPECT_GT(h.memory_bw, 0) << h.id;
    EXPECT_GT(h.efficiency.memory, 0) << h.id;
  }
  for (const auto& m : c.models()) {
    EXPECT_THAT(m.source, ::testing::Not(HasSubstr("catalog.yaml"))) << m.id;
    EXPECT_EQ(m.heads % m.kv_heads, 0) << m.id;
    EXPECT_LE(m.active_params, m.params) << m.id;
  }
  for (const auto& p : c.precisions()) {
    EXPECT_THAT(p.source, ::testing::Not(HasSubstr("catalog.yaml"))) << p.id;
  }
}

TEST(Catalog, HoldsTheHardwareAndModelFamiliesUsersAskFor) {
  const Catalog& c = Catalog::builtin();
  for (const char* id : {"h100", "h200", "b200", "a100", "mi300x", "m2ultra", "lpu"}) {
    EXPECT_NE(c.find_hardware(id), nullptr) << id;
  }
  for (const char* id : {"gemma-4-31b", "llama-3.1-8b", "qwen2.5-7b", "mistral-7b", "mixtral-8x7b"}) {
    EXPECT_NE(c.find_model(id), nullptr) << id;
  }
  const ModelSpec* moe = c.find_model("mixtral-8x7b");
  EXPECT_LT(moe->active_params, moe->params / 3);
  EXPECT_EQ(moe->experts, 8);
  EXPECT_TRUE(c.find_hardware("lpu")->sram_dataflow);
  EXPECT_GT(c.find_hardware("lpu")->efficiency.layer_latency_s, 0);
}

TEST(Catalog, AUserFileAddsAndReplacesEntries) {
  Catalog c = Catalog::builtin();
  const std::size_t models = c.models().size();
  c.add_yaml(R"(
families:
  tpu: {decode_bandwidth: 0.6, prefill_compute: 0.4, step_overhead_us: 200}
hardware:
  - id: tpu-v5e
    family: tpu
    memory_gb: 16
    bandwidth_gb_s: 819
    tflops_16bit: 197
    interconnect_gb_s: 200
  - id: h100
    memory_gb: 94
    bandwidth_gb_s: 3900
    tflops_16bit: 989.4
    efficiency: {decode_bandwidth: 0.9}
models:
  - {id: tiny, params_b: 1, layers: 16, hidden: 2048, heads: 16, kv_heads: 4, head_dim: 128, max_context: 8192}
)",
             "mine.yaml");
  EXPECT_EQ(c.models().size(), models + 1);
  const HardwareSpec* tpu = c.find_hardware("tpu-v5e");
  ASSERT_NE(tpu, nullptr);
  EXPECT_DOUBLE_EQ(tpu->efficiency.memory, 0.6);
  EXPECT_DOUBLE_EQ(tpu->efficiency.step_overhead_s, 200e-6);
  EXPECT_EQ(tpu->source, "mine.yaml");
  EXPECT_DOUBLE_EQ(c.find_hardware("h100")->memory_bytes, 94e9);
  EXPECT_DOUBLE_EQ(c.find_hardware("h100")->efficiency.memory, 0.9);
  EXPECT_DOUBLE_EQ(c.find_model("tiny")->active_params, 1e9);
  EXPECT_DOUBLE_EQ(Catalog::builtin().find_hardware("h100")->memory_bytes, 80e9);
}

TEST(Catalog, RedefiningAFamilyRetunesItsHardware) {
  Catalog c = Catalog::builtin();
  c.add_yaml(
      "families:\n  gpu: {decode_bandwidth: 0.5, layer_overhead_us: 12.5, prefill_compute_8bit: 0.4,"
      " serial_share: 0.25, expert_efficiency: 0.75}\n",
      "mine.yaml");
  EXPECT_DOUBLE_EQ(c.find_hardware("h200")->efficiency.memory, 0.5);
  EXPECT_DOUBLE_EQ(c.find_hardware("h200")->efficiency.layer_overhead_s, 12.5e-6);
  EXPECT_DOUBLE_EQ(c.find_hardware("h200")->efficiency.compute_8bit, 0.4);
  EXPECT_DOUBLE_EQ(c.find_hardware("h200")->efficiency.serial_share, 0.25);
  EXPECT_DOUBLE_EQ(c.find_hardware("h200")->efficiency.expert_efficiency, 0.75);
  EXPECT_THROW(c.add_yaml("families:\n  gpu: {decode_bandwidth: 0.5, expert_efficiency: 0}\n", "zero.yaml"), YamlError);
  EXPECT_DOUBLE_EQ(c.find_hardware("m2ultra")->efficiency.memory,
                   Catalog::builtin().find_hardware("m2ultra")->efficiency.memory);
}

TEST(Catalog, ReportsEveryProblemWithLineAndFieldAndChangesNothing) {
  Catalog c = Catalog::builtin();
  const std::size_t hardware = c.hardware().size();
  try {
    c.add_yaml(R"(hardware:
  - id: bad
    memory_gb: -1
    bandwidth_gb_s: fast
    family: nope
    colour: blue
  - id: fine
    memory_gb: 8
    bandwidth_gb_s: 100
    tflops_16bit: 10
models:
  - {id: m, params_b: 7, active_params_b: 9, layers: 32, hidden: 4096, heads: 32, kv_heads: 5, head_dim: 128}
)",
               "bad.yaml");
    FAIL() << "expected a YamlError";
  } catch (const YamlError& e) {
    const std::string all = e.what();
    EXPECT_THAT(all, HasSubstr("bad.yaml:3:16: hardware[0].memory_gb: must be between"));
    EXPECT_THAT(all, HasSubstr("bad.yaml:4:21: hardware[0].bandwidth_gb_s: must be a number"));
    EXPECT_THAT(all, HasSubstr("hardware[0].tflops_16bit: is required"));
    EXPECT_THAT(all, HasSubstr("hardware[0].family: no family named 'nope'"));
    EXPECT_THAT(all, HasSubstr("bad.yaml:6:5: hardware[0].colour: unknown field"));
    EXPECT_THAT(all, HasSubstr("models[0].active_params_b: cannot exceed params_b"));
    EXPECT_THAT(all, HasSubstr("models[0].kv_heads: must divide heads"));
    EXPECT_THAT(all, HasSubstr("models[0].max_context: is required"));
  }
  EXPECT_EQ(c.hardware().size(), hardware);
  EXPECT_EQ(c.find_hardware("fine"), nullptr);
}

TEST(Catalog, OneIdTwiceInAFileAndImpossibleExpertsAreProblems) {
  Catalog c;
  try {
    c.add_yaml(R"(precisions:
  - {id: q8, weight_bytes: 1, kv_bytes: 2}
  - {id: q8, weight_bytes: 1.1, kv_bytes: 2}
models:
  - {id: moe, params_b: 8, active_params_b: 8, experts: 4, experts_per_token: 4, layers: 2, hidden: 64, heads: 2,
     kv_heads: 2, head_dim: 32, max_context: 64}
)",
               "dup.yaml");
    FAIL() << "expected a YamlError";
  } catch (const YamlError& e) {
    EXPECT_THAT(e.what(), HasSubstr("dup.yaml:3:10: precisions[1].id: 'q8' is already defined above"));
    EXPECT_THAT(e.what(), HasSubstr("models[0].experts: a mixture of experts needs"));
  }
  EXPECT_TRUE(c.precisions().empty());
}

TEST(Catalog, AFamilysFactorsAreCheckedByName) {
  Catalog c = Catalog::builtin();
  try {
    c.add_yaml("families:\n  gpu: {decode_bandwith: 0.5, serial_share: 1.5, layer_overhead_us: -1}\n", "f.yaml");
    FAIL() << "expected a YamlError";
  } catch (const YamlError& e) {
    EXPECT_THAT(e.what(), HasSubstr("families.gpu.decode_bandwith: unknown field (did you mean 'decode_bandwidth'?)"));
    EXPECT_THAT(e.what(), HasSubstr("families.gpu.serial_share: must be between 0 and 1"));
    EXPECT_THAT(e.what(), HasSubstr("families.gpu.layer_overhead_us: must be between"));
  }
  EXPECT_DOUBLE_EQ(c.families().at("gpu").memory, Catalog::builtin().families().at("gpu").memory);
}

TEST(Catalog, ASyntaxErrorNamesTheLine) {
  Catalog c;
  try {
    c.add_yaml("hardware: [\n  {id: x\n", "broken.yaml");
    FAIL() << "expected a YamlError";
  } catch (const YamlError& e) {
    EXPECT_THAT(e.what(), HasSubstr("broken.yaml:"));
  }
}

}  // namespace
}  // namespace infergate::sim
