#pragma once
// Numbers written without a format string, for the HTTP heads and log lines built on every
// request: in place, into memory sized for them (write_*), or appended to a string (append_*)
// from a stack buffer. Nothing is parsed or allocated beyond the string's own growth. Appended as
// (pointer, length): the (first, last) overload goes through basic_string::_M_replace, several
// times the instructions for a few digits.
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

namespace infergate {

// The most bytes write_decimal, write_fixed and write_shortest write.
constexpr std::size_t kDecimalBound = 20;
constexpr std::size_t kFixedBound = 352;    // the longest fixed form of a double (1e308 with decimals)
constexpr std::size_t kShortestBound = 32;  // -2.2250738585072014e-308 and the like

// The shortest form of `value` that reads back as the same double, at `out`, which has room for
// kShortestBound bytes; returns where it ends.
inline char* write_shortest(char* out, double value) {
  return std::to_chars(out, out + kShortestBound, value).ptr;
}

// Writes `value` at `out`, which has room for kDecimalBound bytes; returns where it ends.
inline char* write_decimal(char* out, std::int64_t value) {
  return std::to_chars(out, out + kDecimalBound, value).ptr;
}

// Fixed-point with `decimals` digits after the point, as printf's "%.3f" writes it, at `out`, which
// has room for kFixedBound bytes; returns where it ends.
inline char* write_fixed(char* out, double value, int decimals) {
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
        std::int64_t rest = units % scale;
        for (int i = decimals - 1; i >= 0; --i) {
          out[i] = static_cast<char>('0' + rest % 10);
          rest /= 10;
        }
        out += decimals;
      }
      return out;
    }
  }
  return std::to_chars(out, out + kFixedBound, value, std::chars_format::fixed, decimals).ptr;
}

inline void append_decimal(std::string& out, std::int64_t value) {
  char digits[kDecimalBound];
  out.append(digits, static_cast<std::size_t>(write_decimal(digits, value) - digits));
}

// Lower-case hexadecimal, no prefix (an HTTP chunk-size line).
inline void append_hex(std::string& out, std::uint64_t value) {
  char digits[20];
  const auto result = std::to_chars(digits, digits + sizeof(digits), value, 16);
  out.append(digits, static_cast<std::size_t>(result.ptr - digits));
}

inline void append_fixed(std::string& out, double value, int decimals) {
  char digits[kFixedBound];
  out.append(digits, static_cast<std::size_t>(write_fixed(digits, value, decimals) - digits));
}

}  // namespace infergate
