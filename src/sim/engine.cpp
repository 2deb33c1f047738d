#include "sim/engine.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>

namespace infergate::sim {

namespace {

// The KV cache is allocated in whole blocks.
double round_to_block(double tokens) {
  return std::ceil(tokens / kBlockTokens) * kBlockTokens;
}

}  // namespace

Engine::Engine(const PerfModel& model, EngineLimits limits)
    : model_(model), limits_(limits), kv_budget_(std::max(0.0, model.kv_budget_bytes())) {
  if (limits_.max_num_seqs < 1 || limits_.max_num_batched_tokens < 1) {
    throw std::invalid_argument("max_num_seqs and max_num_batched_tokens must be at least 1");
  }
}

bool Engine::fits(int prompt_tokens, int output_tokens) const {
  return model_.kv_bytes(round_to_block(prompt_tokens + output_tokens)) <= kv_budget_;
}

SequenceId Engine::submit(int prompt_tokens, int output_tokens, std::vector<std::uint64_t> prefix_blocks) {
  Sequence seq;
  seq.prompt_tokens = std::max(1, prompt_tokens);
  seq.output_tokens = std::max(0, output_tokens);
  if (!fits(seq.prompt_tokens, seq.output_tokens)) {
    // Alone in the engine it would preempt itself for ever.
    throw std::invalid_argument("the sequence needs more KV cache than the engine has");
  }
  seq.prefix_blocks = std::move(prefix_blocks);
  const SequenceId id = next_id_++;
  sequences_.emplace(id, std::move(seq));
  waiting_.push_back(id);
  return id;
}

void Engine::cancel(SequenceId id) {
  auto it = sequences_.find(id);
  if (it == sequences_.end()) {
    return;
  }
  release(it->second);
  sequences_.erase(it);
  if (auto w = std::find(waiting_.begin(), waiting_.end(), id); w != waiting_.end()) {
    waiting_.erase(w);
  } else if (auto r = std::find(running_.begin(), running_.end(), id); r != running_.end()) {
    running_.erase(r);
  }
  ++counters_.cancelled;
}

bool Engine::reserve(Sequence& seq, int tokens) {
  const double target = model_.kv_bytes(round_to_block(seq.computed + tokens)) -
                        model_.kv_bytes(static_cast<double>(seq.shared_blocks) * kBlockTokens);
  const double need = target - seq.private_bytes;
  if (need <= 0) {
    return true;
  }
  double free = kv_budget_ - private_bytes_ - cache_.bytes();
  if (need > free) {
    free += cache_.evict(need - free);
  }
  if (need > free) {
    return false;
  }
  seq.private_bytes += need;
  private_bytes_ += need;
  return true;
}

void Engine::release(Sequence& seq) {
  cache_.release(std::span(seq.prefix_blocks.data(), static_cast<std::size_t>(seq.shared_blocks)));
  private_bytes_ -= seq.private_bytes;
  seq.private_bytes = 0;
  seq.shared_blocks = 0;
  seq.computed = 0;
}

void Engine::preempt(SequenceId id) {
  release(sequences_.at(id));
  running_.pop_back();
  waiting_.push_front(id);
  ++counters_.preemptions;
}

// Hands a prompt's full blocks to the prefix cache once computed, so later prompts share them.
void Engine::publish_prompt(Sequence& seq) {
  const int full = std::min(seq.prompt_tokens / kBlockTokens, static_cast<int>(seq.prefix_blocks.size()));
  for (int i = seq.shared_blocks; i < full; ++i) {
    const double bytes = model_.kv_bytes(static_cast<double>(i + 1) * kBlockTokens) -
                         model_.kv_bytes(static_cast<double>(i) * kBlockTokens);
    cache_.share(seq.prefix_blocks[static_cast<std::size_t>(i)], bytes);
    seq.private_bytes -= bytes;
    private_bytes_ -= bytes;
  }
  seq.shared_blocks = std::max(seq.shared_blocks, full);
}

bool Engine::admit_head(int budget) {
  const SequenceId id = waiting_.front();
  Sequence& seq = sequences_.at(id);
  int hit_blocks = 0;
  if (limits_.prefix_caching) {
    // At least the prompt's last token is computed: its output is the first token.
    hit_blocks = cache_.acquire_prefix(seq.prefix_blocks, (seq.prompt_tokens - 1) / kBlockTokens);
    seq.shared_blocks = hit_blocks;
    seq.computed = hit_blocks * kBlockTokens;
  }
  const int tokens = std::min(pending_tokens(seq), budget);
  if (!reserve(seq, tokens)) {
    release(seq);
    return false;
  }
  if (limits_.prefix_caching) {
    counters_.prefix_queried_tokens += static_cast<std::uint64_t>(seq.prompt_tokens);
    counters_.prefix_hit_tokens += static_cast<std::uint64_t>(hit_blocks) * kBlockTokens;
  }
  waiting_.pop_front();
  running_.push_back(id);
  return true;
}

void Engine::schedule(SequenceId id, const Sequence& seq, int tokens, StepShape& shape) {
  if (tokens == 1 && seq.computed >= seq.prompt_tokens) {
    shape.decode_sequences += 1;
    shape.decode_kv_bytes += model_.kv_bytes(seq.computed + 1);
  } else {
    shape.add_prefill_chunk(seq.computed, tokens);
  }
  scheduled_.push_back(Scheduled{id, tokens});
}

std::int64_t Engine::start_step(std::int64_t now_ns) {
  scheduled_.clear();
  StepShape shape;
  int budget = limits_.max_num_batched_tokens;
  bool preempted = false;
  for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
    const SequenceId id = running_[i];
    Sequence& seq = sequences_.at(id);
    const int tokens = std::min(pending_tokens(seq), budget);
    while (i < running_.size() && !reserve(seq, tokens)) {
      preempt(running_.back());  // the latest admitted gives way, maybe this one
      preempted = true;
    }
    if (i < running_.size()) {
      schedule(id, seq, tokens, shape);
      budget -= tokens;
    }
  }
  // As vLLM: while memory is short enough to preempt, nobody new is admitted.
  while (!preempted && budget > 0 && !waiting_.empty() &&
         running_.size() < static_cast<std::size_t>(limits_.max_num_seqs) && admit_head(budget)) {
    const SequenceId id = running_.back();
    const Sequence& seq = sequences_.at(id);
    const int tokens = std::min(pending_tokens(seq), budget);
    schedule(id, seq, tokens, shape);
    budget -= tokens;
  }
  const double seconds = model_.step_seconds(shape) / limits_.speedup;
  const std::int64_t end = now_ns + std::max<std::int64_t>(1, std::llround(seconds * 1e9));
  step_end_ns_ = end;
  ++counters_.steps;
  return end;
}

const std::vector<Emission>& Engine::finish_step() {
  emissions_.clear();
  step_end_ns_.reset();
  bool any_finished = false;
  for (const Scheduled& s : scheduled_) {
    auto it = sequences_.find(s.id);
    if (it == sequences_.end()) {
      continue;  // cancelled during the step
    }
    Sequence& seq = it->second;
    seq.computed += s.tokens;
    if (limits_.prefix_caching && seq.computed >= seq.prompt_tokens) {
      publish_prompt(seq);
    }
    if (pending_tokens(seq) > 0) {
      continue;  // a prompt chunk that is not the last
    }
    if (!seq.counted_prompt) {
      seq.counted_prompt = true;
      counters_.prompt_tokens += static_cast<std::uint64_t>(seq.prompt_tokens);
    }
    const int generated = seq.output_tokens > 0 ? 1 : 0;
    seq.generated += generated;
    counters_.generation_tokens += static_cast<std::uint64_t>(generated);
    const bool finished = seq.generated >= seq.output_tokens;
    emissions_.push_back(Emission{s.id, generated, finished});
    if (finished) {
      release(seq);
      sequences_.erase(it);
      ++counters_.completed;
      any_finished = true;
    }
  }
  if (any_finished) {
    std::erase_if(running_, [this](SequenceId id) { return !sequences_.contains(id); });
  }
  return emissions_;
}

}  // namespace infergate::sim
