#include "sim/sim_metrics.hpp"

#include <fmt/format.h>

namespace infergate::sim {

void append_engine_metrics(std::string& out, std::string_view model_name, const Engine& engine, bool first) {
  auto sample = [&](std::string_view name, std::string_view type, std::string_view help, std::string_view labels,
                    double value) {
    if (first) {
      fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
    }
    fmt::format_to(std::back_inserter(out), "{}{{model_name=\"{}\"{}}} {}\n", name, model_name, labels, value);
  };
  const auto& c = engine.counters();
  const double budget = engine.kv_budget_bytes();
  sample("vllm:num_requests_running", "gauge", "Sequences in the running batch.", "", engine.running());
  sample("vllm:num_requests_waiting", "gauge", "Sequences queued for admission.", "", engine.waiting());
  sample("vllm:kv_cache_usage_perc", "gauge", "Fraction of the KV-cache budget in use (1 = full).", "",
         budget > 0 ? engine.kv_used_bytes() / budget : 0.0);
  sample("vllm:request_success_total", "counter", "Requests that produced all their tokens.", "",
         static_cast<double>(c.completed));
  sample("vllm:request_aborted_total", "counter", "Requests cancelled by their client before finishing.", "",
         static_cast<double>(c.cancelled));
  sample("vllm:prompt_tokens_total", "counter", "Prompt tokens prefilled.", "", static_cast<double>(c.prompt_tokens));
  sample("vllm:generation_tokens_total", "counter", "Tokens generated.", "", static_cast<double>(c.generation_tokens));
  sample("vllm:num_preemptions_total", "counter", "Sequences preempted (KV cache freed, recomputed later).", "",
         static_cast<double>(c.preemptions));
  sample("vllm:prefix_cache_queries_total", "counter", "Prompt tokens looked up in the prefix cache.", "",
         static_cast<double>(c.prefix_queried_tokens));
  sample("vllm:prefix_cache_hits_total", "counter", "Prompt tokens found in the prefix cache.", "",
         static_cast<double>(c.prefix_hit_tokens));
  sample("vllm:gpu_prefix_cache_hit_rate", "gauge", "Prefix-cache hits over queries since start (0 to 1).", "",
         c.prefix_queried_tokens > 0
             ? static_cast<double>(c.prefix_hit_tokens) / static_cast<double>(c.prefix_queried_tokens)
             : 0.0);
  sample("infergate_sim_engine_steps_total", "counter", "Forward steps run by the engine.", "",
         static_cast<double>(c.steps));
  sample("infergate_sim_kv_cache_budget_bytes", "gauge", "KV-cache bytes available after the weights.", "", budget);
}

}  // namespace infergate::sim
