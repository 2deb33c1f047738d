#include "core/text_hash.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <unordered_set>
#include <vector>

namespace infergate {
namespace {

// Every bit of every byte counts, at every length a text is read in a different way (1 to 3
// bytes, one word, two overlapping words, one or more 16-byte blocks and a tail).
TEST(TextHash, EveryBitOfEveryByteChangesTheHash) {
  for (std::size_t length = 1; length <= 50; ++length) {
    const std::string base(length, 'q');
    const std::size_t hash = hash_text(base);
    for (std::size_t at = 0; at < length; ++at) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string changed = base;
        changed[at] = static_cast<char>(changed[at] ^ (1 << bit));
        ASSERT_NE(hash_text(changed), hash) << "length " << length << ", byte " << at << ", bit " << bit;
      }
    }
  }
}

TEST(TextHash, TextsOfZeroBytesDifferByLength) {
  std::unordered_set<std::size_t> seen;
  for (std::size_t length = 0; length <= 64; ++length) {
    EXPECT_TRUE(seen.insert(hash_text(std::string(length, '\0'))).second) << length;
  }
  EXPECT_EQ(hash_text(std::string_view{}), hash_text(""));
}

// Ids that differ in one place, as a key store's and a catalog's names do, spread over the buckets
// of a table as evenly as random numbers would.
TEST(TextHash, SimilarNamesSpreadEvenlyOverBuckets) {
  constexpr std::size_t kBuckets = 1024;
  constexpr std::size_t kNames = 64 * kBuckets;
  std::vector<std::size_t> load(kBuckets);
  std::unordered_set<std::size_t> hashes;
  for (std::size_t i = 0; i < kNames; ++i) {
    const std::string name = "model-" + std::to_string(i) + (i % 2 == 0 ? ":q4" : "");
    const std::size_t hash = hash_text(name);
    hashes.insert(hash);
    ++load[hash % kBuckets];
    ++load[(hash >> 40) % kBuckets];
  }
  EXPECT_EQ(hashes.size(), kNames);
  // 128 per bucket on average; a random hash puts the fullest near 128 + 4 standard deviations (45).
  EXPECT_LT(*std::max_element(load.begin(), load.end()), 190u);
  EXPECT_GT(*std::min_element(load.begin(), load.end()), 70u);
}

TEST(TextHash, LooksUpStringsByViews) {
  EXPECT_EQ(TextHash{}(std::string("gpt-4o-mini")), TextHash{}(std::string_view("gpt-4o-mini")));
}

}  // namespace
}  // namespace infergate
