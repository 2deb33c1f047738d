#include "openai/json_fast_path.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/cpu_features.hpp"

namespace infergate::openai::json_fast_path_detail {

namespace {

#ifdef __SSE2__
// The bytes from `p` to `end`, given that the 16 before `p` are readable: fewer than 16 are read as
// the block that ends at `end`, the bytes before `p` shifted out.
const char* last_bytes_16(const char* p, const char* end) {
  const auto left = static_cast<unsigned>(end - p);
  if (left == 0) {
    return end;
  }
  const unsigned mask = special_bytes_16(end - 16) >> (16 - left);
  return mask != 0 ? p + __builtin_ctz(mask) : end;
}
#endif

#if defined(__x86_64__)
__attribute__((target("avx2"))) const char* next_special_avx2(const char* p, const char* end) {
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  const __m256i space = _mm256_set1_epi8(0x20);
  for (; end - p >= 32; p += 32) {
    const __m256i block = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i hits =
        _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(block, quote), _mm256_cmpeq_epi8(block, backslash)),
                        _mm256_cmpgt_epi8(space, block));
    if (const auto mask = static_cast<unsigned>(_mm256_movemask_epi8(hits)); mask != 0) {
      return p + __builtin_ctz(mask);
    }
  }
  if (end - p >= 16) {
    if (const unsigned mask = special_bytes_16(p); mask != 0) {
      return p + __builtin_ctz(mask);
    }
    p += 16;
  }
  return last_bytes_16(p, end);
}
#endif

using Search = const char* (*)(const char*, const char*);

// Chosen once, when the program loads.
#if defined(__x86_64__)
const Search kLongSearch = cpu_has_avx2() ? next_special_avx2 : next_special_long_narrow;
#else
const Search kLongSearch = next_special_long_narrow;
#endif

}  // namespace

const char* next_special_long_narrow(const char* p, const char* end) {
#ifdef __SSE2__
  for (; end - p >= 16; p += 16) {
    if (const unsigned mask = special_bytes_16(p); mask != 0) {
      return p + __builtin_ctz(mask);
    }
  }
  return last_bytes_16(p, end);
#else
  return next_special(p, end);
#endif
}

bool next_special_has_wide() {
#if defined(__x86_64__)
  return cpu_has_avx2();
#else
  return false;
#endif
}

const char* next_special_long_wide(const char* p, const char* end) {
#if defined(__x86_64__)
  if (next_special_has_wide()) {
    return next_special_avx2(p, end);
  }
#endif
  return next_special_long_narrow(p, end);
}

const char* next_special_long(const char* p, const char* end) {
  return kLongSearch(p, end);
}

}  // namespace infergate::openai::json_fast_path_detail
