#include "http/line_break.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <bit>
#include <cstdint>
#include <cstring>

#include "core/cpu_features.hpp"

namespace infergate::http {

std::size_t first_line_break_memchr(std::string_view bytes) {
  if (bytes.empty()) {
    return std::string_view::npos;  // and its data may be null, which memchr must not be given
  }
  const void* lf = std::memchr(bytes.data(), '\n', bytes.size());
  const std::size_t until = lf ? static_cast<std::size_t>(static_cast<const char*>(lf) - bytes.data()) : bytes.size();
  const void* cr = std::memchr(bytes.data(), '\r', until);
  if (cr != nullptr) {
    return static_cast<std::size_t>(static_cast<const char*>(cr) - bytes.data());
  }
  return lf ? until : std::string_view::npos;
}

namespace {

#if defined(__x86_64__)
__attribute__((target("avx2"))) std::uint32_t breaks_at(const char* at) {
  const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
  const __m256i breaks = _mm256_or_si256(_mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('\n')),
                                         _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('\r')));
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(breaks));
}

__attribute__((target("avx2"), flatten)) std::size_t first_line_break_avx2(std::string_view bytes) {
  const char* begin = bytes.data();
  const std::size_t size = bytes.size();
  if (size < 32) {
    return first_line_break_memchr(bytes);
  }
  std::size_t at = 0;
  for (; at + 32 <= size; at += 32) {
    if (const std::uint32_t found = breaks_at(begin + at); found != 0) {
      return at + static_cast<std::size_t>(std::countr_zero(found));
    }
  }
  if (at == size) {
    return std::string_view::npos;
  }
  // The last bytes as the last whole block, the bytes already looked at shifted out: no read goes
  // past the end.
  const auto behind = static_cast<int>(at + 32 - size);
  const std::uint32_t found = breaks_at(begin + size - 32) >> behind;
  return found != 0 ? at + static_cast<std::size_t>(std::countr_zero(found)) : std::string_view::npos;
}
#endif

using Finder = std::size_t (*)(std::string_view);

// Chosen once, when the program loads: asking the CPU on every line would cost as much as a block.
#if defined(__x86_64__)
const Finder kFinder = cpu_has_avx2() ? first_line_break_avx2 : first_line_break_memchr;
#else
const Finder kFinder = first_line_break_memchr;
#endif

}  // namespace

std::size_t first_line_break(std::string_view bytes) {
  return kFinder(bytes);
}

}  // namespace infergate::http
