#pragma once
// Automatic prefix caching as vLLM does it: the KV cache of a prompt's full blocks is kept under the
// hash of the block and everything before it, shared by every sequence whose prompt starts the same
// way, and kept after they finish until the memory is wanted (least recently released first).
#include <cstdint>
#include <list>
#include <span>
#include <unordered_map>

namespace infergate::sim {

class PrefixCache {
 public:
  // How many leading blocks of `chain` are cached, at most `limit`; takes a reference on each.
  int acquire_prefix(std::span<const std::uint64_t> chain, int limit);

  // Takes a reference on block `hash` of `bytes`, adding it when it is not cached. Returns true when
  // it was cached already: the caller's own copy of those bytes is then redundant.
  bool share(std::uint64_t hash, double bytes);

  // Drops one reference from each block of `chain`. Unreferenced blocks stay cached but can be
  // evicted, the last blocks of a chain first (an early block is useful to more prompts).
  void release(std::span<const std::uint64_t> chain);

  // Evicts unreferenced blocks, oldest first, until `bytes` are freed or none is left; returns the
  // bytes freed.
  double evict(double bytes);

  // Bytes of every cached block, and of those no sequence references.
  [[nodiscard]] double bytes() const { return bytes_; }
  [[nodiscard]] double evictable_bytes() const { return evictable_bytes_; }
  [[nodiscard]] std::size_t blocks() const { return blocks_.size(); }

 private:
  struct Block {
    int refs = 0;
    double bytes = 0;
    std::list<std::uint64_t>::iterator lru;  // valid while refs == 0
  };

  void take(Block& block);

  std::unordered_map<std::uint64_t, Block> blocks_;
  std::list<std::uint64_t> evictable_;  // front: evicted first
  double bytes_ = 0;
  double evictable_bytes_ = 0;
};

}  // namespace infergate::sim
