#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>

#include "cli/commands.hpp"
#include "sim/roofline.hpp"

namespace infergate::cli {

namespace {

struct RooflineArgs {
  std::vector<std::string> models;
  std::vector<std::string> precisions{"bf16"};
  std::vector<std::string> hardware{"h100"};
  std::vector<std::string> catalogs;
  sim::RooflineQuery query;
  int tp = 1;
  bool explain = false;
  bool json = false;
};

std::string devices_cell(const sim::RooflineResult& r) {
  if (r.profile.hardware->sram_dataflow) {
    return fmt::format("{} chips", r.profile.devices);
  }
  return r.fits ? fmt::format("{}", r.profile.devices) : fmt::format("{} (not {})", r.profile.devices, r.devices_asked);
}

// The prompt's tokens over its prefill time: what an endpoint that only prefills (embeddings)
// takes in per second, one prompt at a time.
double prefill_rate(const sim::RooflineResult& r, const sim::RooflineQuery& q) {
  return r.prefill_seconds > 0 ? q.prompt_tokens / r.prefill_seconds : 0;
}

boost::json::object step_json(const sim::StepTime& t) {
  return {{"seconds", t.total},
          {"memory_s", t.memory},
          {"compute_s", t.compute},
          {"serial_s", t.serial},
          {"layer_latency_s", t.layer_latency},
          {"interconnect_s", t.interconnect},
          {"overhead_s", t.overhead},
          {"bound", sim::to_string(t.bound())}};
}

boost::json::object to_json(const sim::RooflineResult& r, const sim::RooflineQuery& q) {
  return {{"model", r.profile.model->id},
          {"precision", r.profile.precision->id},
          {"hardware", r.profile.hardware->id},
          {"devices", r.profile.devices},
          {"devices_asked", r.devices_asked},
          {"devices_needed", r.devices_needed},
          {"fits", r.fits},
          {"weight_bytes", r.weight_bytes},
          {"weight_bytes_per_device", r.weight_bytes_per_device},
          {"usable_bytes_per_device", r.usable_bytes_per_device},
          {"kv_bytes_per_token", r.kv_bytes_per_token},
          {"context", q.context},
          {"kv_bytes_per_sequence", r.kv_bytes_per_sequence},
          {"max_sequences", r.max_sequences},
          {"ideal_decode_tokens_per_s", r.ideal_decode_tps},
          {"decode_tokens_per_s", r.decode_tps},
          {"decode_step", step_json(r.decode_step)},
          {"batch", r.batch},
          {"batch_tokens_per_s", r.batch_tps},
          {"batch_tokens_per_s_per_stream", r.batch_tps_per_stream},
          {"batch_step", step_json(r.batch_step)},
          {"batch_bound", sim::to_string(r.batch_bound)},
          {"prompt_tokens", q.prompt_tokens},
          {"prefill_seconds", r.prefill_seconds},
          {"prefill_tokens_per_s", prefill_rate(r, q)},
          {"prefill_step", step_json(r.prefill_step)}};
}

void run_roofline(const RooflineArgs& args) {
  sim::Catalog catalog = sim::Catalog::builtin();
  for (const auto& path : args.catalogs) {
    catalog.add_file(path);
  }
  std::vector<sim::RooflineResult> results;
  for (const auto& model : args.models) {
    for (const auto& precision : args.precisions) {
      for (const auto& hardware : args.hardware) {
        const std::string text =
            fmt::format("{}:{}@{}{}", model, precision, hardware, args.tp > 1 ? fmt::format("x{}", args.tp) : "");
        results.push_back(sim::roofline(sim::parse_profile(text, catalog), args.query));
      }
    }
  }
  if (args.json) {
    boost::json::array out;
    for (const auto& r : results) {
      out.push_back(to_json(r, args.query));
    }
    fmt::print("{}\n", boost::json::serialize(out));
    return;
  }
  if (args.explain) {
    for (const auto& r : results) {
      fmt::print("{}\n", sim::explain(r, args.query));
    }
    return;
  }
  fmt::print(
      "context {} tokens per sequence, prefill of {} tokens; tok/s from the calibrated model "
      "(ceiling: weights at peak bandwidth, nothing else)\n\n",
      args.query.context, args.query.prompt_tokens);
  // The id columns as wide as the longest id shown (user catalogs bring ids of any length).
  std::size_t model_width = 16;
  std::size_t precision_width = 5;
  std::size_t hardware_width = 8;
  for (const auto& r : results) {
    model_width = std::max(model_width, r.profile.model->id.size());
    precision_width = std::max(precision_width, r.profile.precision->id.size());
    hardware_width = std::max(hardware_width, r.profile.hardware->id.size());
  }
  fmt::print("{:<{}} {:<{}} {:<{}} {:>12} {:>9} {:>8} {:>6} {:>9} {:>9} {:<14} {:>6} {:>9} {:<14} {:>9} {:<9} {:>9}\n",
             "model", model_width, "prec", precision_width, "hardware", hardware_width, "devices", "weights",
             "KV/token", "seqs", "ceiling", "1 stream", "bound", "batch", "tok/s", "bound", "prefill", "bound",
             "in tok/s");
  for (const auto& r : results) {
    fmt::print(
        "{:<{}} {:<{}} {:<{}} {:>12} {:>9} {:>8} {:>6} {:>9.1f} {:>9.1f} {:<14} {:>6} {:>9.0f} {:<14} {:>7.1f}ms "
        "{:<9} {:>9.0f}\n",
        r.profile.model->id, model_width, r.profile.precision->id, precision_width, r.profile.hardware->id,
        hardware_width, devices_cell(r), sim::format_bytes(r.weight_bytes), sim::format_bytes(r.kv_bytes_per_token),
        r.max_sequences, r.ideal_decode_tps, r.decode_tps, sim::to_string(r.decode_step.bound()), r.batch, r.batch_tps,
        sim::to_string(r.batch_bound), r.prefill_seconds * 1e3, sim::to_string(r.prefill_step.bound()),
        prefill_rate(r, args.query));
  }
}

}  // namespace

void add_roofline_command(CLI::App& app) {
  auto args = std::make_shared<RooflineArgs>();
  auto* cmd = app.add_subcommand("roofline", "What a model on given hardware can reach, and which resource binds");
  cmd->add_option("--model", args->models, "Model ids, comma separated")->required()->delimiter(',');
  cmd->add_option("--precision", args->precisions, "Precisions, comma separated")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--hardware", args->hardware, "Hardware ids, comma separated")->delimiter(',')->capture_default_str();
  cmd->add_option("--context", args->query.context, "Tokens each sequence holds while decoding")
      ->check(CLI::Range(1, 1 << 24))
      ->capture_default_str();
  cmd->add_option("--prompt", args->query.prompt_tokens, "Prompt tokens for the prefill time")
      ->check(CLI::Range(1, 1 << 24))
      ->capture_default_str();
  cmd->add_option("--max-batch", args->query.max_batch, "Largest batch considered (a server's max_num_seqs)")
      ->check(CLI::Range(1, 1 << 24))
      ->capture_default_str();
  cmd->add_option("--tp", args->tp, "Tensor-parallel degree (for SRAM dataflow chips: the least chip count)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--catalog", args->catalogs, "YAML file of extra hardware, models and precisions, repeatable");
  cmd->add_flag("--explain", args->explain, "Show the arithmetic step by step");
  cmd->add_flag("--json", args->json, "Print JSON for tools");
  cmd->callback([args] { run_roofline(*args); });
}

}  // namespace infergate::cli
