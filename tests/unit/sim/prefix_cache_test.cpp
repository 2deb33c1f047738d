#include "sim/prefix_cache.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace infergate::sim {
namespace {

TEST(PrefixCache, FindsOnlyTheLeadingBlocksItHolds) {
  PrefixCache cache;
  const std::vector<std::uint64_t> chain{1, 2, 3};
  EXPECT_EQ(cache.acquire_prefix(chain, 3), 0);
  EXPECT_FALSE(cache.share(1, 10));
  EXPECT_FALSE(cache.share(3, 10));
  EXPECT_EQ(cache.acquire_prefix(chain, 3), 1);  // block 2 is missing: block 3 cannot be reached
  EXPECT_EQ(cache.acquire_prefix(chain, 0), 0);
  EXPECT_DOUBLE_EQ(cache.bytes(), 20);
}

TEST(PrefixCache, SharingACachedBlockAddsNoBytes) {
  PrefixCache cache;
  EXPECT_FALSE(cache.share(7, 10));
  EXPECT_TRUE(cache.share(7, 10));
  EXPECT_DOUBLE_EQ(cache.bytes(), 10);
  const std::vector<std::uint64_t> block{7};
  cache.release(block);
  EXPECT_DOUBLE_EQ(cache.evictable_bytes(), 0);  // one reference left
  cache.release(block);
  EXPECT_DOUBLE_EQ(cache.evictable_bytes(), 10);
}

TEST(PrefixCache, EvictsOnlyUnreferencedBlocksTheChainsTailFirst) {
  PrefixCache cache;
  const std::vector<std::uint64_t> chain{1, 2, 3};
  for (auto h : chain) {
    cache.share(h, 10);
  }
  cache.share(9, 10);  // held by someone
  EXPECT_DOUBLE_EQ(cache.evict(100), 0);
  cache.release(chain);
  EXPECT_DOUBLE_EQ(cache.evict(10), 10);
  EXPECT_EQ(cache.acquire_prefix(chain, 3), 2);  // block 3 went first
  cache.release(std::vector<std::uint64_t>{1, 2});
  EXPECT_DOUBLE_EQ(cache.evict(100), 20);
  EXPECT_EQ(cache.blocks(), 1u);
  EXPECT_DOUBLE_EQ(cache.bytes(), 10);
}

TEST(PrefixCache, AcquiringAnEvictableBlockProtectsIt) {
  PrefixCache cache;
  const std::vector<std::uint64_t> chain{1};
  cache.share(1, 10);
  cache.release(chain);
  EXPECT_EQ(cache.acquire_prefix(chain, 1), 1);
  EXPECT_DOUBLE_EQ(cache.evict(10), 0);
}

}  // namespace
}  // namespace infergate::sim
