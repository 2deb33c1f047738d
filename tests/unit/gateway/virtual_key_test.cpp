#include "gateway/virtual_key.hpp"

#include <gtest/gtest.h>

#include <set>

namespace infergate::gateway {
namespace {

TEST(VirtualKey, FreshKeysHaveTheirIdInsideAndDiffer) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const NewKey k = generate_key();
    EXPECT_EQ(k.key.size(), 3 + kKeyIdLength + kKeySecretLength);
    EXPECT_TRUE(k.key.starts_with("ig-" + k.id));
    EXPECT_EQ(key_id(k.key), k.id);
    EXPECT_TRUE(seen.insert(k.key).second);
  }
}

TEST(VirtualKey, ShapesThatAreNotKeysHaveNoId) {
  const NewKey k = generate_key();
  EXPECT_FALSE(key_id(k.key.substr(1)));
  EXPECT_FALSE(key_id("sk-" + k.key.substr(3)));
  std::string bad = k.key;
  bad[20] = '-';
  EXPECT_FALSE(key_id(bad));
  EXPECT_FALSE(key_id(""));
}

// The characters after the prefix are checked sixteen at a time, the last block overlapping: every
// byte value at every place is accepted exactly when it is one of the 62.
TEST(VirtualKey, EveryByteAtEveryPlaceIsAKeyCharacterOnlyWhenBase62) {
  const std::string key = generate_key().key;
  const std::string_view alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  for (std::size_t at = kKeyPrefix.size(); at < kKeyLength; ++at) {
    for (int byte = 0; byte < 256; ++byte) {
      std::string changed = key;
      changed[at] = static_cast<char>(byte);
      const bool base62 = alphabet.find(static_cast<char>(byte)) != std::string_view::npos;
      ASSERT_EQ(key_id(changed).has_value(), base62) << "byte " << byte << " at " << at;
    }
  }
}

TEST(VirtualKey, HashesAreSha256AndRoundTripThroughHex) {
  // SHA-256("abc"), FIPS 180-2's example.
  EXPECT_EQ(to_hex(hash_key("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const KeyHash h = hash_key("ig-something");
  EXPECT_EQ(from_hex(to_hex(h)), h);
  EXPECT_FALSE(from_hex("zz"));
  EXPECT_TRUE(same_hash(h, hash_key("ig-something")));
  EXPECT_FALSE(same_hash(h, hash_key("ig-somethinG")));
}

TEST(VirtualKey, DisplayPrefixHidesMostOfTheId) {
  EXPECT_EQ(display_prefix("abcdefghijkl"), "ig-abcdef...");
}

TEST(VirtualKey, KeysCompareEqualOnlyWhenEveryCharacterIs) {
  const std::string key = generate_key().key;
  ASSERT_EQ(key.size(), kKeyLength);
  EXPECT_TRUE(same_key(key.data(), std::string(key).data()));
  for (std::size_t at = 0; at < kKeyLength; ++at) {  // the whole words and the bytes after them
    std::string other = key;
    other[at] = other[at] == 'a' ? 'b' : 'a';
    EXPECT_FALSE(same_key(key.data(), other.data())) << at;
  }
}

}  // namespace
}  // namespace infergate::gateway
