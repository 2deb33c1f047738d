#include "sim/prefix_cache.hpp"

namespace infergate::sim {

void PrefixCache::take(Block& block) {
  if (block.refs++ == 0) {
    evictable_.erase(block.lru);
    evictable_bytes_ -= block.bytes;
  }
}

int PrefixCache::acquire_prefix(std::span<const std::uint64_t> chain, int limit) {
  int found = 0;
  while (found < limit && static_cast<std::size_t>(found) < chain.size()) {
    auto it = blocks_.find(chain[found]);
    if (it == blocks_.end()) {
      break;
    }
    take(it->second);
    ++found;
  }
  return found;
}

bool PrefixCache::share(std::uint64_t hash, double bytes) {
  auto [it, added] = blocks_.try_emplace(hash);
  if (added) {
    it->second.refs = 1;
    it->second.bytes = bytes;
    bytes_ += bytes;
    return false;
  }
  take(it->second);
  return true;
}

void PrefixCache::release(std::span<const std::uint64_t> chain) {
  // Released last block first, so the chain's tail sits nearest the front of the eviction queue.
  for (auto hash = chain.rbegin(); hash != chain.rend(); ++hash) {
    auto it = blocks_.find(*hash);
    if (it == blocks_.end() || it->second.refs == 0) {
      continue;
    }
    Block& block = it->second;
    if (--block.refs == 0) {
      block.lru = evictable_.insert(evictable_.end(), *hash);
      evictable_bytes_ += block.bytes;
    }
  }
}

double PrefixCache::evict(double bytes) {
  double freed = 0;
  while (freed < bytes && !evictable_.empty()) {
    auto it = blocks_.find(evictable_.front());
    evictable_.pop_front();
    freed += it->second.bytes;
    bytes_ -= it->second.bytes;
    evictable_bytes_ -= it->second.bytes;
    blocks_.erase(it);
  }
  return freed;
}

}  // namespace infergate::sim
