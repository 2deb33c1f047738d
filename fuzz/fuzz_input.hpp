#pragma once
// What the fuzz targets share: a check that stops the run with a message (libFuzzer then keeps the
// input), and the cutting of an input into the pieces a socket might have delivered it in, so that
// a target can compare a reading of the bytes in one piece with a reading of the same bytes cut
// anywhere.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace infergate::fuzz {

// Stops the run when `holds` is false: the input broke the property named by `what`.
inline void check(bool holds, const char* what) {
  if (!holds) {
    std::fprintf(stderr, "fuzz property broken: %s\n", what);
    std::abort();
  }
}

// An input as its first byte, which chooses where the rest is cut, and the rest.
struct Input {
  std::uint8_t seed = 0;
  std::string_view bytes;
};

inline Input split_seed(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return {};
  }
  return {data[0], std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1)};
}

// `bytes` cut into pieces of 1 to 64 bytes, their sizes drawn from `seed` (seed 0: one piece).
inline std::vector<std::string_view> cut(std::string_view bytes, std::uint8_t seed) {
  std::vector<std::string_view> pieces;
  if (seed == 0) {
    pieces.push_back(bytes);
    return pieces;
  }
  std::uint64_t state = seed;
  while (!bytes.empty()) {
    // splitmix64: any seed gives a different, well-spread run of sizes.
    state += 0x9E3779B97F4A7C15U;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9U;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBU;
    z ^= z >> 31;
    const std::size_t size = std::min<std::size_t>(bytes.size(), 1 + z % 64);
    pieces.push_back(bytes.substr(0, size));
    bytes.remove_prefix(size);
  }
  return pieces;
}

}  // namespace infergate::fuzz
