#include "core/text_hash.hpp"

#include <cstdint>
#include <cstring>

namespace infergate {

namespace {

constexpr std::uint64_t kSeed0 = 0x9E37'79B9'7F4A'7C15ULL;  // 2^64 / golden ratio
constexpr std::uint64_t kSeed1 = 0xC2B2'AE3D'27D4'EB4FULL;  // an odd constant with mixed bits

// Both halves of the 128-bit product: every bit of either word moves bits of the result.
std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
}

template <class Word>
std::uint64_t load(const char* at) {
  Word w;
  std::memcpy(&w, at, sizeof(w));
  return w;
}

}  // namespace

std::size_t hash_text(std::string_view text) {
  const char* p = text.data();
  std::size_t n = text.size();
  std::uint64_t state = kSeed1 ^ n;
  for (; n > 16; p += 16, n -= 16) {
    state = mix(load<std::uint64_t>(p) ^ kSeed0, load<std::uint64_t>(p + 8) ^ state);
  }
  // The last 1 to 16 bytes (or none) as two words that may overlap.
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  if (n >= 8) {
    a = load<std::uint64_t>(p);
    b = load<std::uint64_t>(p + n - 8);
  } else if (n >= 4) {
    a = load<std::uint32_t>(p);
    b = load<std::uint32_t>(p + n - 4);
  } else if (n > 0) {
    a = (std::uint64_t{static_cast<unsigned char>(p[0])} << 16) |
        (std::uint64_t{static_cast<unsigned char>(p[n / 2])} << 8) | static_cast<unsigned char>(p[n - 1]);
  }
  return static_cast<std::size_t>(mix(a ^ kSeed0, b ^ state));
}

}  // namespace infergate
