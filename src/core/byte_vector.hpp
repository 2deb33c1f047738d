#pragma once
// Bytes of text loaded as one word, or sixteen as one vector compared lane by lane with the
// ordinary operators: GCC's and Clang's vector extension, which is SSE2 on x86-64, NEON on Arm and
// plain words elsewhere. For the short texts checked on every request (ids, keys, names), where a
// byte loop costs several instructions a byte.
#include <cstdint>
#include <cstring>

namespace infergate {

// The sizeof(Word) bytes at `at`, which need no alignment, as one unsigned integer `Word`.
template <class Word>
Word load_word(const char* at) {
  Word word;
  std::memcpy(&word, at, sizeof(word));
  return word;
}

using Bytes16 = unsigned char __attribute__((vector_size(16)));

inline Bytes16 load_bytes16(const char* at) {
  Bytes16 bytes;
  std::memcpy(&bytes, at, sizeof(bytes));
  return bytes;
}

// Whether any lane, or every lane, of a comparison's result (lanes of all ones or all zeros) is set.
template <class Lanes>
bool any_lane(Lanes lanes) {
  static_assert(sizeof(lanes) == 16);
  std::uint64_t halves[2];
  std::memcpy(halves, &lanes, sizeof(halves));
  return (halves[0] | halves[1]) != 0;
}

template <class Lanes>
bool every_lane(Lanes lanes) {
  static_assert(sizeof(lanes) == 16);
  std::uint64_t halves[2];
  std::memcpy(halves, &lanes, sizeof(halves));
  return (halves[0] & halves[1]) == ~std::uint64_t{0};
}

}  // namespace infergate
