#pragma once
// Bytes of text loaded as one word, or sixteen as one vector compared lane by lane with the
// ordinary operators: GCC's and Clang's vector extension, which is SSE2 on x86-64, NEON on Arm and
// plain words elsewhere. For the short texts checked on every request (ids, keys, names), where a
// byte loop costs several instructions a byte.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace infergate {

// The sizeof(Word) bytes at `at`, which need no alignment, as one unsigned integer `Word`.
template <class Word>
Word load_word(const char* at) {
  Word word;
  std::memcpy(&word, at, sizeof(word));
  return word;
}

// Whether `a` and `b` hold the same bytes: compared a word at a time, the last word overlapping
// the one before, where a call to memcmp costs more than the comparison of a name's few bytes.
inline bool same_bytes(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  if (n != b.size()) {
    return false;
  }
  if (n >= 8) {
    for (std::size_t i = 0; i + 8 < n; i += 8) {
      if (load_word<std::uint64_t>(a.data() + i) != load_word<std::uint64_t>(b.data() + i)) {
        return false;
      }
    }
    return load_word<std::uint64_t>(a.data() + n - 8) == load_word<std::uint64_t>(b.data() + n - 8);
  }
  if (n >= 4) {
    return load_word<std::uint32_t>(a.data()) == load_word<std::uint32_t>(b.data()) &&
           load_word<std::uint32_t>(a.data() + n - 4) == load_word<std::uint32_t>(b.data() + n - 4);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) {
      return false;
    }
  }
  return true;
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
