#include "sim/engine.hpp"

#include <algorithm>
#include <cmath>

namespace infergate::sim {

Engine::Engine(const PerfModel& model, EngineLimits limits)
    : model_(model), limits_(limits), kv_budget_(std::max(0.0, model.kv_budget_bytes())) {}

bool Engine::fits(int prompt_tokens, int output_tokens) const {
  return model_.kv_bytes(prompt_tokens + output_tokens) <= kv_budget_;
}

SequenceId Engine::submit(int prompt_tokens, int output_tokens) {
  const SequenceId id = next_id_++;
  sequences_.emplace(id, Sequence{prompt_tokens, std::max(1, output_tokens)});
  waiting_.push_back(id);
  return id;
}

void Engine::cancel(SequenceId id) {
  auto it = sequences_.find(id);
  if (it == sequences_.end()) {
    return;
  }
  kv_used_ -= it->second.kv_reserved;
  sequences_.erase(it);
  if (auto w = std::find(waiting_.begin(), waiting_.end(), id); w != waiting_.end()) {
    waiting_.erase(w);
  } else if (auto r = std::find(running_.begin(), running_.end(), id); r != running_.end()) {
    running_.erase(r);
  }
  ++counters_.cancelled;
}

void Engine::admit() {
  while (!waiting_.empty() && running_.size() < static_cast<std::size_t>(limits_.max_num_seqs)) {
    Sequence& seq = sequences_.at(waiting_.front());
    const double need = model_.kv_bytes(seq.prompt_tokens + seq.output_tokens);
    if (kv_used_ + need > kv_budget_) {
      return;  // first come, first served: nobody overtakes the head of the queue
    }
    seq.kv_reserved = need;
    kv_used_ += need;
    running_.push_back(waiting_.front());
    waiting_.pop_front();
  }
}

std::int64_t Engine::start_step(std::int64_t now_ns) {
  admit();
  StepShape shape;
  for (SequenceId id : running_) {
    const Sequence& seq = sequences_.at(id);
    if (seq.generated == 0) {
      const double n = seq.prompt_tokens;
      shape.prefill_tokens += n;
      shape.prefill_attention += n * (n + 1) / 2;
    } else {
      shape.decode_sequences += 1;
      shape.decode_kv_bytes += model_.kv_bytes(seq.prompt_tokens + seq.generated);
    }
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
  std::size_t kept = 0;
  for (SequenceId id : running_) {
    Sequence& seq = sequences_.at(id);
    if (seq.generated == 0) {
      counters_.prompt_tokens += static_cast<std::uint64_t>(seq.prompt_tokens);
    }
    ++seq.generated;
    ++counters_.generation_tokens;
    const bool finished = seq.generated >= seq.output_tokens;
    emissions_.push_back(Emission{id, 1, finished});
    if (finished) {
      kv_used_ -= seq.kv_reserved;
      sequences_.erase(id);
      ++counters_.completed;
    } else {
      running_[kept++] = id;
    }
  }
  running_.resize(kept);
  return emissions_;
}

}  // namespace infergate::sim
