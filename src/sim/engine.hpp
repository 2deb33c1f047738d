#pragma once
// Continuous batching as vLLM does it, as pure logic on explicit times (no clock, no sockets), so
// tests drive it step by step.
//
// Each step admits waiting sequences first-come-first-served while fewer than max_num_seqs run and
// their KV cache fits the budget, prefills the admitted ones (which yields their first token) and
// decodes one token for every sequence already running. A sequence reserves the KV cache for its
// whole prompt + output at admission (no preemption). The step lasts as long as the performance
// model says, divided by the speedup.
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sim/perf_model.hpp"

namespace infergate::sim {

struct EngineLimits {
  int max_num_seqs = 256;
  double speedup = 1.0;  // divides every model time: tests and demos run faster than real time
};

using SequenceId = std::uint64_t;

struct Emission {
  SequenceId id;
  int tokens;     // generated this step
  bool finished;  // the sequence produced its last token
};

struct EngineCounters {
  std::uint64_t completed = 0;
  std::uint64_t cancelled = 0;
  std::uint64_t prompt_tokens = 0;
  std::uint64_t generation_tokens = 0;
  std::uint64_t steps = 0;
};

class Engine {
 public:
  Engine(const PerfModel& model, EngineLimits limits);

  // The sequence can never run: it needs more KV cache than the whole budget holds.
  [[nodiscard]] bool fits(int prompt_tokens, int output_tokens) const;

  // Queues a sequence that will produce exactly `output_tokens` (>= 1) tokens.
  SequenceId submit(int prompt_tokens, int output_tokens);

  // Removes a waiting or running sequence and frees its slot and KV cache at once.
  void cancel(SequenceId id);

  [[nodiscard]] bool busy() const { return step_end_ns_.has_value(); }
  [[nodiscard]] bool has_work() const { return !waiting_.empty() || !running_.empty(); }

  // Starts a step at `now_ns` (the engine must not be busy and must have work); returns its end.
  std::int64_t start_step(std::int64_t now_ns);

  // Ends the current step: one token for each sequence that ran in it and was not cancelled. The
  // result is valid until the next call.
  const std::vector<Emission>& finish_step();

  [[nodiscard]] std::size_t running() const { return running_.size(); }
  [[nodiscard]] std::size_t waiting() const { return waiting_.size(); }
  [[nodiscard]] double kv_used_bytes() const { return kv_used_; }
  [[nodiscard]] double kv_budget_bytes() const { return kv_budget_; }
  [[nodiscard]] const EngineCounters& counters() const { return counters_; }
  [[nodiscard]] const PerfModel& model() const { return model_; }

 private:
  struct Sequence {
    int prompt_tokens = 0;
    int output_tokens = 0;
    int generated = 0;
    double kv_reserved = 0;
  };

  void admit();

  const PerfModel& model_;
  EngineLimits limits_;
  double kv_budget_;
  double kv_used_ = 0;
  SequenceId next_id_ = 1;
  std::unordered_map<SequenceId, Sequence> sequences_;
  std::deque<SequenceId> waiting_;
  std::vector<SequenceId> running_;
  std::optional<std::int64_t> step_end_ns_;
  std::vector<Emission> emissions_;
  EngineCounters counters_;
};

}  // namespace infergate::sim
