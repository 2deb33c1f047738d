#pragma once
// Numbers appended to a string without a format string: the HTTP heads and access-log lines built
// on every request. std::to_chars writes into a stack buffer, so nothing is parsed or allocated
// beyond the string's own growth.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace infergate {

inline void append_decimal(std::string& out, std::int64_t value) {
  char digits[24];
  const auto result = std::to_chars(digits, digits + sizeof(digits), value);
  out.append(digits, result.ptr);
}

// Lower-case hexadecimal, no prefix (an HTTP chunk-size line).
inline void append_hex(std::string& out, std::uint64_t value) {
  char digits[20];
  const auto result = std::to_chars(digits, digits + sizeof(digits), value, 16);
  out.append(digits, result.ptr);
}

// Fixed-point with `decimals` digits after the point, as printf's "%.3f" writes it.
inline void append_fixed(std::string& out, double value, int decimals) {
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
        out.push_back('-');
      }
      append_decimal(out, units / scale);
      if (decimals > 0) {
        char fraction[8];
        std::int64_t rest = units % scale;
        for (int i = decimals - 1; i >= 0; --i) {
          fraction[i] = static_cast<char>('0' + rest % 10);
          rest /= 10;
        }
        out.push_back('.');
        out.append(fraction, static_cast<std::size_t>(decimals));
      }
      return;
    }
  }
  char digits[352];  // the longest fixed form of a double (1e308 with its decimals) fits
  const auto result = std::to_chars(digits, digits + sizeof(digits), value, std::chars_format::fixed, decimals);
  out.append(digits, result.ptr);
}

}  // namespace infergate
