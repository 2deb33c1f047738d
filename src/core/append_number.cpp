#include "core/append_number.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

namespace infergate {

namespace {

// The eight decimal digits of `v` (below 10^8, leading zeros included), one per byte of a 64-bit
// word with the first digit in the lowest byte. The word is worked in lanes: the two halves of v,
// then four pairs, then eight digits, each lane divided by a multiply and a shift that is exact
// over its range (n * 10486 >> 20 is n / 100 below 43,699; n * 103 >> 10 is n / 10 below 179).
// std::to_chars divides the whole number again for every pair of digits.
std::uint64_t digit_lanes(std::uint32_t v) {
  std::uint64_t x = (v / 10'000) | (static_cast<std::uint64_t>(v % 10'000) << 32);
  std::uint64_t q = ((x * 10'486) >> 20) & 0x0000'007F'0000'007FULL;
  x = q | ((x - q * 100) << 16);
  q = ((x * 103) >> 10) & 0x000F'000F'000F'000FULL;
  return q | ((x - q * 10) << 8);
}

// The same for the four digits of `v` below 10^4, in the low four bytes: most numbers of a log
// line (statuses, token counts, milliseconds and their fractions) are this short.
std::uint32_t four_digit_lanes(std::uint32_t v) {
  std::uint32_t x = (v / 100) | ((v % 100) << 16);
  const std::uint32_t q = ((x * 103) >> 10) & 0x000F'000FU;
  return q | ((x - q * 10) << 8);
}

void store_four_digits(char* out, std::uint32_t lanes) {
  lanes += 0x3030'3030U;
  if constexpr (std::endian::native == std::endian::big) {
    lanes = __builtin_bswap32(lanes);
  }
  std::memcpy(out, &lanes, sizeof(lanes));
}

// Writes the eight bytes of `lanes` at `out` as digits, lowest byte first.
void store_digits(char* out, std::uint64_t lanes) {
  lanes += 0x3030'3030'3030'3030ULL;  // '0' in every byte
  if constexpr (std::endian::native == std::endian::big) {
    lanes = __builtin_bswap64(lanes);
  }
  std::memcpy(out, &lanes, sizeof(lanes));
}

// `v` (1 to 10^8 - 1) without leading zeros: writes eight bytes at `out` and returns where the
// digits end.
char* write_leading(char* out, std::uint32_t v) {
  const std::uint64_t lanes = digit_lanes(v);
  const int zeros = std::countr_zero(lanes) / 8;  // leading zero digits are the lowest bytes
  store_digits(out, lanes >> (8 * zeros));
  return out + (8 - zeros);
}

constexpr std::uint64_t kE8 = 100'000'000;
constexpr std::uint64_t kE16 = kE8 * kE8;

// 10^k for k from kLowest to kHighest: the range of values write_shortest's quick way takes.
// Those with k below zero are the doubles nearest to them, which is what a comparison needs.
constexpr int kLowest = -8;
constexpr int kHighest = 15;
constexpr double kPowers[] = {1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0,  1e1,  1e2,  1e3,
                              1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
// 10^k for k to 22, every one exact in a double.
constexpr double kExact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// The decimal `digits` (`count` of them, the first nonzero) times 10^(exponent - count + 1) as
// std::to_chars writes a shortest form: fixed or scientific, whichever is shorter, fixed on a tie.
char* write_plain(char* out, const char* digits, int count, int exponent) {
  const int scientific = count + (count > 1 ? 1 : 0) + 4;  // d.ddde-05 (two exponent digits here)
  const int fixed =
      exponent >= 0 ? std::max(count, exponent + 1) + (count > exponent + 1 ? 1 : 0) : count + 1 - exponent;
  if (fixed > scientific) {
    *out++ = digits[0];
    if (count > 1) {
      *out++ = '.';
      out = std::copy_n(digits + 1, count - 1, out);
    }
    const int magnitude = exponent < 0 ? -exponent : exponent;
    *out++ = 'e';
    *out++ = exponent < 0 ? '-' : '+';
    *out++ = static_cast<char>('0' + magnitude / 10);
    *out++ = static_cast<char>('0' + magnitude % 10);
    return out;
  }
  if (exponent < 0) {
    *out++ = '0';
    *out++ = '.';
    out = std::fill_n(out, -exponent - 1, '0');
    return std::copy_n(digits, count, out);
  }
  if (count <= exponent + 1) {
    out = std::copy_n(digits, count, out);
    return std::fill_n(out, exponent + 1 - count, '0');
  }
  out = std::copy_n(digits, exponent + 1, out);
  *out++ = '.';
  return std::copy_n(digits + exponent + 1, count - exponent - 1, out);
}

}  // namespace

char* write_shortest(char* out, double value) {
  // Ryu (std::to_chars) takes some 600 instructions for any double. A value that some decimal of
  // at most 15 digits reads back as (a cost in the ledger, mostly) is found faster by trying
  // 1, 2, ... digits: m = round(value / 10^e) is that decimal's digits when it exists (the value
  // lies within 0.23 of m, and the division errs by less than 0.12), and m * 10^e with both
  // exact, rounded once, is what reading "m e e" back gives. At 15 digits or fewer there is at
  // most one such decimal of a length, so the first found is the one Ryu finds. Other values,
  // and those outside the range, go to std::to_chars.
  if (value >= kPowers[0] && value < kPowers[kHighest - kLowest]) {
    // floor(log10(2) * the binary exponent) is the decimal one or one below it.
    const int binary = static_cast<int>((std::bit_cast<std::uint64_t>(value) >> 52) & 0x7ff) - 1023;
    int exponent = std::clamp((binary * 78'913) >> 18, kLowest, kHighest - 1);
    while (value < kPowers[exponent - kLowest]) {
      --exponent;
    }
    while (value >= kPowers[exponent + 1 - kLowest]) {
      ++exponent;
    }
    for (int count = 1; count <= 15; ++count) {
      const int e = exponent - count + 1;
      const double m = std::nearbyint(e < 0 ? value * kExact[-e] : value / kExact[e]);
      if ((e < 0 ? m / kExact[-e] : m * kExact[e]) == value) {
        char digits[kDecimalBound];
        const int length = static_cast<int>(write_decimal(digits, static_cast<std::int64_t>(m)) - digits);
        if (length == count) {
          return write_plain(out, digits, count, exponent);
        }
        break;
      }
    }
  }
  return std::to_chars(out, out + kShortestBound, value).ptr;
}

char* write_decimal(char* out, std::int64_t value) {
  auto u = static_cast<std::uint64_t>(value);
  if (value < 0) {
    *out++ = '-';
    u = 0 - u;
  }
  if (u < 10) {
    *out = static_cast<char>('0' + u);
    return out + 1;
  }
  if (u < 10'000) {
    const std::uint32_t lanes = four_digit_lanes(static_cast<std::uint32_t>(u));
    const int zeros = std::countr_zero(lanes) / 8;
    store_four_digits(out, lanes >> (8 * zeros));
    return out + (4 - zeros);
  }
  if (u < kE8) {
    return write_leading(out, static_cast<std::uint32_t>(u));
  }
  if (u < kE16) {
    out = write_leading(out, static_cast<std::uint32_t>(u / kE8));
  } else {
    out = write_leading(out, static_cast<std::uint32_t>(u / kE16));
    store_digits(out, digit_lanes(static_cast<std::uint32_t>(u / kE8 % kE8)));
    out += 8;
  }
  store_digits(out, digit_lanes(static_cast<std::uint32_t>(u % kE8)));
  return out + 8;
}

char* write_fixed(char* out, double value, int decimals) {
  // The values a log line holds (milliseconds) are printed as scaled integers, several times faster
  // than std::to_chars; one whose scaled value lies within rounding error of a half goes the exact
  // way, so that it rounds as printf would.
  static constexpr double kPow10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};
  static constexpr double kFastBelow = 1e9;  // scaled values whose float error stays far below 1e-5
  if (decimals >= 0 && decimals <= 6 && std::fabs(value) * kPow10[decimals] < kFastBelow) {
    const double scaled = std::fabs(value) * kPow10[decimals];
    const double rounded = std::nearbyint(scaled);
    if (std::fabs(std::fabs(scaled - rounded) - 0.5) > 1e-5) {
      const auto units = static_cast<std::int64_t>(rounded);
      const auto scale = static_cast<std::int64_t>(kPow10[decimals]);
      if (std::signbit(value)) {
        *out++ = '-';
      }
      out = write_decimal(out, units / scale);
      if (decimals > 0) {
        *out++ = '.';
        // The fraction's digits are the last `decimals` of its four or eight.
        const auto fraction = static_cast<std::uint32_t>(units % scale);
        if (decimals <= 4) {
          store_four_digits(out, four_digit_lanes(fraction) >> (8 * (4 - decimals)));
        } else {
          store_digits(out, digit_lanes(fraction) >> (8 * (8 - decimals)));
        }
        out += decimals;
      }
      return out;
    }
  }
  return std::to_chars(out, out + kFixedBound, value, std::chars_format::fixed, decimals).ptr;
}

}  // namespace infergate
