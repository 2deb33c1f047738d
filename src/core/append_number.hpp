#pragma once
// Numbers appended to a string without a format string: the HTTP heads and access-log lines built
// on every request. std::to_chars writes into a stack buffer, so nothing is parsed or allocated
// beyond the string's own growth.
#include <charconv>
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
  char digits[352];  // the longest fixed form of a double (1e308 with its decimals) fits
  const auto result = std::to_chars(digits, digits + sizeof(digits), value, std::chars_format::fixed, decimals);
  out.append(digits, result.ptr);
}

}  // namespace infergate
