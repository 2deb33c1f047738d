#include "gateway/virtual_key.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "core/byte_vector.hpp"

namespace infergate::gateway {

namespace {

constexpr std::string_view kAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Rejection sampling keeps every character uniform over the 62.
std::string random_base62(std::size_t length) {
  std::string out;
  out.reserve(length);
  unsigned char buffer[64];
  while (out.size() < length) {
    if (RAND_bytes(buffer, sizeof buffer) != 1) {
      throw std::runtime_error("the system's random source failed");
    }
    for (unsigned char byte : buffer) {
      if (byte < 248 && out.size() < length) {  // 248 = 4 x 62
        out.push_back(kAlphabet[byte % 62]);
      }
    }
  }
  return out;
}

// Every request with a key runs this, on the 44 characters after the prefix: sixteen at a time
// (the last block overlapping the one before), the rest through a table.
bool base62(std::string_view text) {
  static constexpr auto kIsBase62 = [] {
    std::array<bool, 256> table{};
    for (const char c : kAlphabet) {
      table[static_cast<unsigned char>(c)] = true;
    }
    return table;
  }();
  const auto block = [&](std::size_t at) {
    const Bytes16 bytes = load_bytes16(text.data() + at);
    // Setting bit 5 folds 'A'-'Z' onto 'a'-'z' and moves no other byte into that range.
    return every_lane((static_cast<Bytes16>(bytes - '0') < 10) | (static_cast<Bytes16>((bytes | 0x20) - 'a') < 26));
  };
  if (text.size() >= 16) {
    for (std::size_t at = 0; at + 16 <= text.size(); at += 16) {
      if (!block(at)) {
        return false;
      }
    }
    return block(text.size() - 16);
  }
  return std::all_of(text.begin(), text.end(), [](char c) { return kIsBase62[static_cast<unsigned char>(c)]; });
}

}  // namespace

NewKey generate_key() {
  NewKey k;
  k.id = random_base62(kKeyIdLength);
  k.key = std::string(kKeyPrefix) + k.id + random_base62(kKeySecretLength);
  return k;
}

std::optional<std::string_view> key_id(std::string_view key) {
  if (key.size() != kKeyLength || !key.starts_with(kKeyPrefix) || !base62(key.substr(kKeyPrefix.size()))) {
    return std::nullopt;
  }
  return key.substr(kKeyPrefix.size(), kKeyIdLength);
}

std::string display_prefix(std::string_view id) {
  return std::string(kKeyPrefix) + std::string(id.substr(0, 6)) + "...";
}

KeyHash hash_key(std::string_view key) {
  // Fetched once: OpenSSL 3 looks the algorithm up in its providers on every implicit fetch.
  static EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  // One digest context per thread, reused: EVP_Digest would allocate and free one per call, and
  // this runs for every request that carries a key.
  thread_local const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                                     &EVP_MD_CTX_free);
  KeyHash out{};
  unsigned int length = 0;
  if (sha256 == nullptr || context == nullptr || EVP_DigestInit_ex2(context.get(), sha256, nullptr) != 1 ||
      EVP_DigestUpdate(context.get(), key.data(), key.size()) != 1 ||
      EVP_DigestFinal_ex(context.get(), out.data(), &length) != 1 || length != out.size()) {
    throw std::runtime_error("SHA-256 failed");
  }
  return out;
}

std::string to_hex(const KeyHash& hash) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(hash.size() * 2);
  for (unsigned char byte : hash) {
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 15]);
  }
  return out;
}

std::optional<KeyHash> from_hex(std::string_view hex) {
  KeyHash out{};
  if (hex.size() != out.size() * 2) {
    return std::nullopt;
  }
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    return -1;
  };
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = nibble(hex[2 * i]);
    const int lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return std::nullopt;
    }
    out[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return out;
}

bool same_hash(const KeyHash& a, const KeyHash& b) {
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool same_key(const char* a, const char* b) {
  // Sixteen bytes at a time, the last block overlapping, every byte compared whatever the others.
  static_assert(kKeyLength >= 16);
  Bytes16 diff{};
  for (std::size_t at = 0; at + 16 <= kKeyLength; at += 16) {
    diff |= load_bytes16(a + at) ^ load_bytes16(b + at);
  }
  diff |= load_bytes16(a + kKeyLength - 16) ^ load_bytes16(b + kKeyLength - 16);
  return !any_lane(diff);
}

}  // namespace infergate::gateway
