#include "core/text_hash.hpp"

#include <cstdint>

#include "core/byte_vector.hpp"

namespace infergate {

namespace {

constexpr std::uint64_t kSeed0 = 0x9E37'79B9'7F4A'7C15ULL;  // 2^64 / golden ratio
constexpr std::uint64_t kSeed1 = 0xC2B2'AE3D'27D4'EB4FULL;  // an odd constant with mixed bits

// GCC's and Clang's 128-bit integer; __extension__ says it is meant, for -Wpedantic.
__extension__ using Wide = unsigned __int128;

// Both halves of the 128-bit product: every bit of either word moves bits of the result.
std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  const Wide product = static_cast<Wide>(a) * b;
  return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
}

}  // namespace

std::size_t hash_text(std::string_view text) {
  const char* p = text.data();
  std::size_t n = text.size();
  std::uint64_t state = kSeed1 ^ n;
  for (; n > 16; p += 16, n -= 16) {
    state = mix(load_word<std::uint64_t>(p) ^ kSeed0, load_word<std::uint64_t>(p + 8) ^ state);
  }
  // The last 1 to 16 bytes (or none) as two words that may overlap.
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  if (n >= 8) {
    a = load_word<std::uint64_t>(p);
    b = load_word<std::uint64_t>(p + n - 8);
  } else if (n >= 4) {
    a = load_word<std::uint32_t>(p);
    b = load_word<std::uint32_t>(p + n - 4);
  } else if (n > 0) {
    a = (std::uint64_t{static_cast<unsigned char>(p[0])} << 16) |
        (std::uint64_t{static_cast<unsigned char>(p[n / 2])} << 8) | static_cast<unsigned char>(p[n - 1]);
  }
  return static_cast<std::size_t>(mix(a ^ kSeed0, b ^ state));
}

}  // namespace infergate
