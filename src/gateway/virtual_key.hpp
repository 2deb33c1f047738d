#pragma once
// Virtual API keys as callers hold them: "ig-" + a 12-character public id + a 32-character secret
// (base62, 190 bits of randomness in the secret). The store keeps only the SHA-256 of the whole
// key; the id finds the record, and the hashes are compared in constant time.
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace infergate::gateway {

inline constexpr std::string_view kKeyPrefix = "ig-";
inline constexpr std::size_t kKeyIdLength = 12;
inline constexpr std::size_t kKeySecretLength = 32;
inline constexpr std::size_t kKeyLength = kKeyPrefix.size() + kKeyIdLength + kKeySecretLength;

using KeyHash = std::array<unsigned char, 32>;

struct NewKey {
  std::string id;
  std::string key;  // shown once, at creation
};

// A fresh key from the operating system's random source.
NewKey generate_key();

// The id of a key in the right shape; nullopt for anything else.
std::optional<std::string_view> key_id(std::string_view key);

// What lists show instead of the key: "ig-" and the first characters of the id.
std::string display_prefix(std::string_view id);

KeyHash hash_key(std::string_view key);
std::string to_hex(const KeyHash& hash);
std::optional<KeyHash> from_hex(std::string_view hex);

// Constant time, so that the time taken says nothing about how much of a guess was right.
bool same_hash(const KeyHash& a, const KeyHash& b);
// Two keys of kKeyLength characters, in constant time, a word at a time (CRYPTO_memcmp, behind
// same_hash, goes byte by byte).
bool same_key(const char* a, const char* b);

}  // namespace infergate::gateway
