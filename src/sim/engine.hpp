#pragma once
// Continuous batching as vLLM's scheduler does it, as pure logic on explicit times (no clock, no
// sockets), so tests drive it step by step.
//
// Each step has a budget of tokens. Running sequences come first, in the order they were admitted:
// a decoding one takes one token, one still prefilling takes the next chunk of its prompt that the
// budget allows (chunked prefill, so long prompts do not stall the decodes beside them). Then
// waiting sequences are admitted first-come-first-served while the budget, max_num_seqs and the KV
// cache allow. A sequence's KV cache grows as it computes tokens; when the next step's growth does
// not fit, the most recently admitted sequence is preempted: its cache is freed and it goes back to
// the head of the queue, to recompute its prompt and what it generated so far when readmitted.
// With prefix caching, a prompt's full blocks are shared with every sequence that starts the same
// way and need no compute. A step lasts as long as the performance model says, divided by the
// speedup.
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sim/perf_model.hpp"
#include "sim/prefix_cache.hpp"

namespace infergate::sim {

// Tokens per KV-cache block, and so per prefix-cache entry (vLLM's default block size).
inline constexpr int kBlockTokens = 16;

struct EngineLimits {
  int max_num_seqs = 256;
  double speedup = 1.0;               // divides every model time: tests and demos run faster than real time
  int max_num_batched_tokens = 8192;  // tokens computed in one step, over every sequence in it
  bool prefix_caching = true;
};

using SequenceId = std::uint64_t;

struct Emission {
  SequenceId id;
  int tokens;     // generated this step (0 as a prompt-only sequence ends)
  bool finished;  // the sequence produced its last token
};

struct EngineCounters {
  std::uint64_t completed = 0;
  std::uint64_t cancelled = 0;
  std::uint64_t prompt_tokens = 0;
  std::uint64_t generation_tokens = 0;
  std::uint64_t steps = 0;
  std::uint64_t preemptions = 0;
  std::uint64_t prefix_queried_tokens = 0;  // prompt tokens looked up in the prefix cache
  std::uint64_t prefix_hit_tokens = 0;      // of those, tokens found there
};

class Engine {
 public:
  // Throws std::invalid_argument when max_num_batched_tokens or max_num_seqs is below 1.
  Engine(const PerfModel& model, EngineLimits limits);

  // The sequence can never run: it needs more KV cache than the whole budget holds.
  [[nodiscard]] bool fits(int prompt_tokens, int output_tokens) const;

  // Queues a sequence that will produce exactly `output_tokens` tokens; with 0 it is a prompt only
  // (a pooling model's input): it finishes, generating nothing, when its prompt is computed. `prefix_blocks`
  // holds, for each full block of kBlockTokens prompt tokens, a hash of the prompt up to the end of
  // that block; empty, the prompt shares nothing.
  SequenceId submit(int prompt_tokens, int output_tokens, std::vector<std::uint64_t> prefix_blocks = {});

  // Removes a waiting or running sequence and frees its slot and KV cache at once.
  void cancel(SequenceId id);

  [[nodiscard]] bool busy() const { return step_end_ns_.has_value(); }
  [[nodiscard]] bool has_work() const { return !waiting_.empty() || !running_.empty(); }

  // Starts a step at `now_ns` (the engine must not be busy and must have work); returns its end.
  std::int64_t start_step(std::int64_t now_ns);

  // Ends the current step: a token for each sequence that computed all it had to and was not
  // cancelled meanwhile. The result is valid until the next call.
  const std::vector<Emission>& finish_step();

  [[nodiscard]] std::size_t running() const { return running_.size(); }
  [[nodiscard]] std::size_t waiting() const { return waiting_.size(); }
  // KV bytes held by sequences (cached blocks no sequence uses count as free).
  [[nodiscard]] double kv_used_bytes() const { return private_bytes_ + cache_.bytes() - cache_.evictable_bytes(); }
  [[nodiscard]] double kv_budget_bytes() const { return kv_budget_; }
  [[nodiscard]] const EngineCounters& counters() const { return counters_; }
  [[nodiscard]] const PerfModel& model() const { return model_; }

 private:
  struct Sequence {
    int prompt_tokens = 0;
    int output_tokens = 0;
    int generated = 0;
    int computed = 0;       // tokens whose KV is in the cache
    int shared_blocks = 0;  // leading prompt blocks held in the prefix cache, not privately
    double private_bytes = 0;
    bool counted_prompt = false;
    std::vector<std::uint64_t> prefix_blocks;
  };
  struct Scheduled {
    SequenceId id;
    int tokens;
  };

  [[nodiscard]] int pending_tokens(const Sequence& seq) const {
    return seq.prompt_tokens + seq.generated - seq.computed;
  }
  // Grows the sequence's KV cache to hold `tokens` more; false when memory cannot be found.
  bool reserve(Sequence& seq, int tokens);
  void release(Sequence& seq);
  void preempt(SequenceId id);
  bool admit_head(int budget);
  void publish_prompt(Sequence& seq);
  void schedule(SequenceId id, const Sequence& seq, int tokens, StepShape& shape);

  const PerfModel& model_;
  EngineLimits limits_;
  double kv_budget_;
  double private_bytes_ = 0;
  PrefixCache cache_;
  SequenceId next_id_ = 1;
  std::unordered_map<SequenceId, Sequence> sequences_;
  std::deque<SequenceId> waiting_;
  std::vector<SequenceId> running_;  // in admission order
  std::vector<Scheduled> scheduled_;
  std::optional<std::int64_t> step_end_ns_;
  std::vector<Emission> emissions_;
  EngineCounters counters_;
};

}  // namespace infergate::sim
