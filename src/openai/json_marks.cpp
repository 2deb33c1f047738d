#include "openai/json_marks.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cstring>

#include "core/cpu_features.hpp"

namespace infergate::openai {

using Block = JsonMarks::Block;
using Carry = JsonMarks::Carry;

namespace {

// Which of 64 bytes are quotes, backslashes, opening and closing brackets or braces.
struct Bytes {
  std::uint64_t quotes = 0;
  std::uint64_t backslashes = 0;
  std::uint64_t opens = 0;
  std::uint64_t closes = 0;
};

// Bit i set where an odd number of bits 0..i are: from a string's opening quote (set) to just
// before its closing one.
std::uint64_t prefix_xor(std::uint64_t bits) {
  for (unsigned shift = 1; shift < 64; shift *= 2) {
    bits ^= bits << shift;
  }
  return bits;
}

// One block's marks from its bytes, given what the block before carried.
template <class PrefixXor>
Block marks_of(const Bytes& bytes, Carry& carry, PrefixXor prefix) {
  // Backslashes are rare outside escaped text: each one, left to right, escapes the byte after it
  // unless it is escaped itself. One in the last byte escapes the next block's first.
  std::uint64_t escaped = carry.escaped;
  carry.escaped = 0;
  for (std::uint64_t left = bytes.backslashes & ~escaped; left != 0;) {
    const std::uint64_t backslash = left & (~left + 1);
    const std::uint64_t after = backslash << 1;
    escaped |= after;
    carry.escaped |= backslash >> 63;
    left &= ~(backslash | after);
  }
  const std::uint64_t quotes = bytes.quotes & ~escaped;
  const std::uint64_t inside = prefix(quotes) ^ carry.inside;
  carry.inside = static_cast<std::uint64_t>(static_cast<std::int64_t>(inside) >> 63);
  carry.stray_backslashes |= bytes.backslashes & ~inside;
  return {quotes, bytes.opens & ~inside, bytes.closes & ~inside};
}

// The blocks from `at`, with `load(q)` giving the Bytes of the 64 bytes at q. The last bytes, when
// fewer than 64, are read from a copy padded with zeros, which match nothing.
template <class Load, class PrefixXor>
std::size_t read_blocks(const char* at, std::size_t left, Carry& carry, Block* out, Load load, PrefixXor prefix) {
  Carry c = carry;  // a local: the blocks written through `out` could otherwise alias it
  const std::size_t whole = std::min(JsonMarks::kWindow, left / 64);
  for (std::size_t n = 0; n < whole; ++n) {
    out[n] = marks_of(load(at + 64 * n), c, prefix);
  }
  std::size_t n = whole;
  if (n < JsonMarks::kWindow && left % 64 != 0) {
    char padded[64] = {};
    std::memcpy(padded, at + 64 * n, left % 64);
    out[n++] = marks_of(load(padded), c, prefix);
  }
  carry = c;
  return n;
}

#if defined(__SSE2__)
__attribute__((flatten)) std::size_t read_blocks_sse2(const char* at, std::size_t left, Carry& carry, Block* out) {
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  // '[' ']' '{' '}' are 0x5b 0x5d 0x7b 0x7d: with bit 0x20 cleared, 0x5b and 0x5d.
  const __m128i fold = _mm_set1_epi8(static_cast<char>(~0x20));
  const __m128i open = _mm_set1_epi8('[');
  const __m128i close = _mm_set1_epi8(']');
  const auto load = [&](const char* q) {
    Bytes b;
    for (unsigned quarter = 0; quarter < 4; ++quarter) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + std::size_t{16} * quarter));
      const __m128i folded = _mm_and_si128(bytes, fold);
      const auto mask = [quarter](__m128i hits) {
        return static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(hits))) << (16 * quarter);
      };
      b.quotes |= mask(_mm_cmpeq_epi8(bytes, quote));
      b.backslashes |= mask(_mm_cmpeq_epi8(bytes, backslash));
      b.opens |= mask(_mm_cmpeq_epi8(folded, open));
      b.closes |= mask(_mm_cmpeq_epi8(folded, close));
    }
    return b;
  };
  return read_blocks(at, left, carry, out, load, prefix_xor);
}
#else
std::size_t read_blocks_scalar(const char* at, std::size_t left, Carry& carry, Block* out) {
  const auto load = [](const char* q) {
    Bytes b;
    for (unsigned i = 0; i < 64; ++i) {
      const std::uint64_t bit = std::uint64_t{1} << i;
      b.quotes |= q[i] == '"' ? bit : 0;
      b.backslashes |= q[i] == '\\' ? bit : 0;
      b.opens |= q[i] == '[' || q[i] == '{' ? bit : 0;
      b.closes |= q[i] == ']' || q[i] == '}' ? bit : 0;
    }
    return b;
  };
  return read_blocks(at, left, carry, out, load, prefix_xor);
}
#endif

#if defined(__x86_64__)
__attribute__((target("avx2,pclmul"), flatten)) std::size_t read_blocks_avx2(const char* at, std::size_t left,
                                                                             Carry& carry, Block* out) {
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  const __m256i fold = _mm256_set1_epi8(static_cast<char>(~0x20));
  const __m256i open = _mm256_set1_epi8('[');
  const __m256i close = _mm256_set1_epi8(']');
  const __m128i ones = _mm_set1_epi8(-1);
  const auto load = [&](const char* q) __attribute__((target("avx2"))) {
    const __m256i low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
    const __m256i high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32));
    const auto mask = [](__m256i low_hits, __m256i high_hits) __attribute__((target("avx2"))) {
      return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(low_hits))) |
             static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(high_hits))) << 32;
    };
    const __m256i low_folded = _mm256_and_si256(low, fold);
    const __m256i high_folded = _mm256_and_si256(high, fold);
    return Bytes{mask(_mm256_cmpeq_epi8(low, quote), _mm256_cmpeq_epi8(high, quote)),
                 mask(_mm256_cmpeq_epi8(low, backslash), _mm256_cmpeq_epi8(high, backslash)),
                 mask(_mm256_cmpeq_epi8(low_folded, open), _mm256_cmpeq_epi8(high_folded, open)),
                 mask(_mm256_cmpeq_epi8(low_folded, close), _mm256_cmpeq_epi8(high_folded, close))};
  };
  // Carry-less multiplication by all ones is the prefix XOR in one instruction.
  const auto prefix = [&](std::uint64_t bits) __attribute__((target("pclmul"))) {
    return static_cast<std::uint64_t>(
        _mm_cvtsi128_si64(_mm_clmulepi64_si128(_mm_cvtsi64_si128(static_cast<long long>(bits)), ones, 0)));
  };
  return read_blocks(at, left, carry, out, load, prefix);
}
#endif

using ReadBlocks = std::size_t (*)(const char*, std::size_t, Carry&, Block*);

// Chosen once, when the program loads: asking the CPU for every window would cost more than the
// difference.
#if defined(__x86_64__)
const ReadBlocks kReadBlocks = json_marks_detail::has_read_blocks_wide() ? read_blocks_avx2 : read_blocks_sse2;
#elif defined(__SSE2__)
const ReadBlocks kReadBlocks = read_blocks_sse2;
#else
const ReadBlocks kReadBlocks = read_blocks_scalar;
#endif

}  // namespace

namespace json_marks_detail {

std::size_t read_blocks_narrow(const char* at, std::size_t left, Carry& carry, Block* out) {
#if defined(__SSE2__)
  return read_blocks_sse2(at, left, carry, out);
#else
  return read_blocks_scalar(at, left, carry, out);
#endif
}

bool has_read_blocks_wide() {
#if defined(__x86_64__)
  return cpu_has_avx2() && cpu_has_pclmul();
#else
  return false;
#endif
}

std::size_t read_blocks_wide(const char* at, std::size_t left, Carry& carry, Block* out) {
#if defined(__x86_64__)
  if (has_read_blocks_wide()) {
    return read_blocks_avx2(at, left, carry, out);
  }
#endif
  return read_blocks_narrow(at, left, carry, out);
}

}  // namespace json_marks_detail

void JsonMarks::read_window() {
  window_start_ = window_end_;
  const std::size_t blocks = kReadBlocks(text_.data() + window_start_, text_.size() - window_start_, carry_, window_);
  window_end_ = window_start_ + 64 * blocks;
}

}  // namespace infergate::openai
