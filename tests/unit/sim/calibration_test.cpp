#include "sim/calibration.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include <fmt/format.h>

namespace infergate::sim {
namespace {

using ::testing::HasSubstr;

// The acceptance bound of docs/simulator.md, on the data shipped with the binary: prints the error
// of every row so a failing run shows which.
TEST(Calibration, BuiltInFactorsMatchTheMeasurements) {
  const auto rows = builtin_calibration();
  ASSERT_GE(rows.size(), 15u);
  const CalibrationReport report = evaluate(rows, Catalog::builtin());
  for (const auto& r : report.rows) {
    std::printf("%-22s %-13s measured %10.5g %-5s predicted %10.5g  error %+6.1f%%\n", r.row->id.c_str(),
                to_string(r.row->scenario), r.row->value, r.row->unit.c_str(), r.predicted, (r.ratio - 1) * 100);
    EXPECT_LE(std::max(r.ratio, 1 / r.ratio), 2.0) << r.row->id;
  }
  for (ErrorClass cls : {ErrorClass::decode_rate, ErrorClass::ttft, ErrorClass::throughput}) {
    ASSERT_TRUE(report.classes.contains(cls)) << to_string(cls);
    const ClassSummary& s = report.classes.at(cls);
    std::printf("%-16s %d rows, median |error| %.1f%%, worst %.2fx\n", to_string(cls), s.rows, s.median_abs_error * 100,
                s.worst_factor);
    EXPECT_GE(s.rows, 5) << to_string(cls);
    EXPECT_LT(s.median_abs_error, 0.20) << to_string(cls);
  }
  EXPECT_TRUE(meets_bounds(report));
}

// The catalog holds the fit to the shipped rows: moving any factor the fit moves a 250th of
// its range off its value makes those rows' squared log error worse. It fails when rows are
// added or the model changes without a refit (`infergate calibrate --fit`).
TEST(Calibration, TheCatalogHoldsTheFitToTheShippedRows) {
  const Catalog& catalog = Catalog::builtin();
  const auto rows = builtin_calibration();
  std::vector<const CalibrationRow*> gpu;
  for (const auto& row : rows) {
    if (catalog.find_hardware(row.hardware)->family == "gpu") {
      gpu.push_back(&row);
    }
  }
  const Efficiency fitted = catalog.families().at("gpu");
  const double at = squared_log_error(gpu, catalog, fitted);
  const std::vector<FitParameter> parameters = fit_parameters(gpu, catalog);
  ASSERT_GE(parameters.size(), 8u) << "the GPU rows tell every GPU factor apart";
  for (const FitParameter& p : parameters) {
    for (double sign : {-1.0, 1.0}) {
      Efficiency moved = fitted;
      moved.*p.field = std::clamp(moved.*p.field + sign * (p.hi - p.lo) / 250, p.lo, p.hi);
      if (moved.*p.field != fitted.*p.field) {
        EXPECT_GT(squared_log_error(gpu, catalog, moved), at)
            << efficiency_field(p.field).name << (sign > 0 ? " up" : " down");
      }
    }
  }
}

// `calibrate --fit` prints its factors as YAML and applies that text to the catalog it reports
// on: every factor must come back, rounding apart, also one the fit left at its default.
TEST(Calibration, TheFittedFactorsYamlGivesEveryFactorBack) {
  Catalog catalog = Catalog::builtin();
  auto families = catalog.families();
  Efficiency& gpu = families.at("gpu");
  gpu.serial_share = 0;
  gpu.expert_efficiency = 1;
  gpu.memory = 0.8123;
  gpu.layer_latency_s = 4.56e-6;
  gpu.hop_latency_s = 1.23e-6;
  families.at("dataflow").hop_latency_s = 0;
  families.at("apple").layer_overhead_s = 12.3e-6;
  catalog.add_yaml(families_yaml(families), "fitted factors");
  for (const auto& [name, e] : families) {
    for (const EfficiencyField& f : efficiency_fields()) {
      const double rounding = 0.5 * std::pow(10.0, -f.decimals) * f.unit;
      EXPECT_NEAR(catalog.families().at(name).*f.member, e.*f.member, rounding * 1.000001) << name << "." << f.name;
    }
  }
}

// A catalog of one device whose only costs are reading at 1 TB/s and computing at `tflops`: a
// 5B model (10 GB in bf16) of one layer with one 256-wide KV head. `family` adds factors.
Catalog ideal_device(double tflops, std::string_view family = "") {
  Catalog c;
  c.add_yaml(fmt::format(R"(
families:
  ideal: {{decode_bandwidth: 1, prefill_compute: 1, step_overhead_us: 0, memory_utilization: 1{}}}
hardware:
  - {{id: dev, family: ideal, memory_gb: 100, bandwidth_gb_s: 1000, tflops_16bit: {}}}
models:
  - {{id: m, params_b: 5, layers: 1, hidden: 256, heads: 1, kv_heads: 1, head_dim: 256, max_context: 4096}}
precisions:
  - {{id: bf16, weight_bytes: 2, kv_bytes: 2}}
)",
                         family, tflops),
             "test.yaml");
  return c;
}

// The row `fields` (scenario, batch, input, output, requests, value, unit) of model m on that device.
CalibrationRow row_on_ideal_device(std::string_view fields) {
  return parse_calibration_csv(
             fmt::format("id,hardware,model,precision,devices,engine,scenario,batch,input,output,requests,value,unit,"
                         "source,note\nr,dev,m,bf16,1,x,{},test,\n",
                         fields),
             "t.csv")
      .at(0);
}

// A throughput row goes through the batching engine: 2 sequences, 1 prompt token, 3 output tokens
// on an ideal device whose only cost is reading 10 GB at 1 TB/s: 3 steps of 10 ms for 6 tokens.
TEST(Calibration, ThroughputRowsRunTheEngine) {
  const RowResult r = predict(row_on_ideal_device("static_batch,2,1,3,2,100,tok/s"), ideal_device(1e6));
  EXPECT_NEAR(r.predicted, 6 / 0.030, 1e-3);  // steps are whole nanoseconds
  EXPECT_NEAR(r.ratio, 2.0, 1e-5);
}

// A decode row of `batch` streams is each stream's rate at one step of all of them. On the ideal
// device computing 1 PFLOP/s, a step of 4 streams reads the weights (10 ms), their KV (4 x 1,000
// tokens x 1 KiB: 4.1 us) and computes 40 GFLOP plus their attention (40 us); the serial share
// 0.5 adds half of that.
TEST(Calibration, ADecodeRowOfABatchIsEachStreamsRateAtOneStepOfAll) {
  const RowResult r =
      predict(row_on_ideal_device("decode,4,900,200,4,50,tok/s"), ideal_device(1000, ", serial_share: 0.5"));
  const double kv = 4 * 1000 * 2.0 * 256 * 2;
  const double flops = 2 * 5e9 * 4 + 4.0 * 256 * 4 * 1000;
  const double step = (10e9 + kv) / 1e12 + 0.5 * flops / 1e15;
  EXPECT_NEAR(r.predicted, 1 / step, 1e-6);
  EXPECT_NEAR(r.ratio, 1 / step / 50, 1e-8);
}

// Rows generated from known factors: the fit must find them again.
TEST(Calibration, FitRecoversTheFactorsThatMadeTheData) {
  Catalog truth = Catalog::builtin();
  truth.add_yaml(
      "families:\n  gpu: {decode_bandwidth: 0.6, prefill_compute: 0.4, step_overhead_us: 1500,"
      " prefill_overhead_us: 0, layer_overhead_us: 40, prefill_compute_8bit: 0.3, serial_share: 0.3,"
      " expert_efficiency: 0.7}\n",
      "truth.yaml");
  std::string csv =
      "id,hardware,model,precision,devices,engine,scenario,batch,input,output,requests,value,unit,source,note\n";
  const char* shapes[] = {"h100,llama-3.1-8b,bf16", "h200,llama-3.3-70b,fp8", "a100,qwen2.5-7b,bf16",
                          "h200,mixtral-8x7b,bf16"};
  int n = 0;
  for (const char* shape : shapes) {
    for (const char* scenario : {"decode,1,0,128,1", "decode,1,4096,128,1", "ttft,1,2048,1,1", "ttft,1,8192,1,1",
                                 "static_batch,64,512,64,64"}) {
      csv += fmt::format("r{},{},1,x,{},1,ms,test,\n", n++, shape, scenario);
    }
  }
  auto rows = parse_calibration_csv(csv, "synthetic.csv");
  for (auto& row : rows) {
    row.value = predict(row, truth).predicted;
  }
  const auto fitted = fit_families(rows, Catalog::builtin());
  const Efficiency& e = fitted.at("gpu");
  EXPECT_NEAR(e.memory, 0.6, 0.02);
  EXPECT_NEAR(e.compute, 0.4, 0.02);
  EXPECT_NEAR(e.step_overhead_s, 1.5e-3, 0.2e-3);
  EXPECT_NEAR(e.layer_overhead_s, 40e-6, 5e-6);
  EXPECT_NEAR(e.compute_8bit, 0.3, 0.02);
  EXPECT_NEAR(e.serial_share, 0.3, 0.05);
  EXPECT_NEAR(e.expert_efficiency, 0.7, 0.03);
  for (const auto& row : rows) {
    EXPECT_NEAR(predict(row, Catalog::builtin(), &e).ratio, 1.0, 0.03) << row.id;
  }
}

// Rows of one model cannot tell a cost per layer from a cost per step: the fit leaves the layer
// term alone and puts the whole fixed cost per step.
TEST(Calibration, ALayerCostIsFittedOnlyAcrossModelsOfDifferentDepths) {
  Catalog truth = Catalog::builtin();
  truth.add_yaml(
      "families:\n  gpu: {decode_bandwidth: 0.7, prefill_compute: 0.5, step_overhead_us: 500,"
      " prefill_overhead_us: 0, layer_overhead_us: 50}\n",
      "truth.yaml");
  Catalog start = Catalog::builtin();
  start.add_yaml("families:\n  gpu: {decode_bandwidth: 0.7, prefill_compute: 0.5}\n", "start.yaml");
  std::string csv =
      "id,hardware,model,precision,devices,engine,scenario,batch,input,output,requests,value,unit,source,note\n";
  int n = 0;
  for (const char* hardware : {"h100", "h200", "a100"}) {
    for (const char* scenario : {"decode,1,0,128,1", "decode,1,4096,128,1", "ttft,1,2048,1,1"}) {
      csv += fmt::format("r{},{},llama-3.1-8b,bf16,1,x,{},1,ms,test,\n", n++, hardware, scenario);
    }
  }
  auto rows = parse_calibration_csv(csv, "synthetic.csv");
  for (auto& row : rows) {
    row.value = predict(row, truth).predicted;
  }
  const Efficiency e = fit_families(rows, start).at("gpu");
  EXPECT_EQ(e.layer_overhead_s, 0);
  EXPECT_EQ(e.expert_efficiency, 1) << "no mixture of experts among the rows";
  EXPECT_NEAR(e.step_overhead_s, 500e-6 + 32 * 50e-6, 0.1e-3);
}

TEST(Calibration, CsvProblemsNameTheLine) {
  const std::string header =
      "id,hardware,model,precision,devices,engine,scenario,batch,input,output,requests,value,unit,source,note\n";
  try {
    parse_calibration_csv(
        header + "a,h100,m,bf16,1,x,decode,1,0,128,1,10,tok/s,s,\nb,h100,m,bf16,1,x,warp,1,0,1,1,1,x,s,\n", "d.csv");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("d.csv:3: unknown scenario 'warp'"));
  }
  EXPECT_THROW(parse_calibration_csv("id,hardware\n", "d.csv"), std::runtime_error);
  EXPECT_THROW(parse_calibration_csv(header + "a,h100,m,bf16,0,x,decode,1,0,128,1,10,tok/s,s,\n", "d.csv"),
               std::runtime_error);
  EXPECT_THROW(parse_calibration_csv(header + "a,h100,m,bf16,1,x,ttft,1,0,1,1,10,ms,s,\n", "d.csv"),
               std::runtime_error);
  const auto rows = parse_calibration_csv(
      header + "a,h100,m,bf16,1,x,decode,1,0,128,1,10,tok/s,s,\"a, \"\"quoted\"\"\nnote\"\n", "d.csv");
  EXPECT_EQ(rows.at(0).note, "a, \"quoted\"\nnote");
}

TEST(Calibration, RowsOutsideTheCatalogAreReported) {
  const auto rows = parse_calibration_csv(
      "id,hardware,model,precision,devices,engine,scenario,batch,input,output,requests,value,unit,source,note\n"
      "r,tpu,llama-3.1-8b,bf16,1,x,decode,1,0,1,1,1,tok/s,s,\n",
      "d.csv");
  try {
    predict(rows.at(0), Catalog::builtin());
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("llama-3.1-8b:bf16@tpu is not in the catalog"));
  }
}

}  // namespace
}  // namespace infergate::sim
