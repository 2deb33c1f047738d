#pragma once
// Numbers written without a format string, for the HTTP heads and log lines built on every
// request: in place, into memory sized for them (write_*), or appended to a string (append_*)
// from a stack buffer. Nothing is parsed or allocated beyond the string's own growth. Appended as
// (pointer, length): the (first, last) overload goes through basic_string::_M_replace, several
// times the instructions for a few digits. The writers are out of line: a line of a dozen numbers
// would otherwise carry a dozen copies of them, and the request path's code outgrows the
// instruction cache before its instruction count matters.
#include <charconv>
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
char* write_shortest(char* out, double value);

// Writes `value` at `out`, which has room for kDecimalBound bytes; returns where it ends. Digits are
// stored eight at a time, so bytes after that end, within the bound, may be overwritten.
char* write_decimal(char* out, std::int64_t value);

// Fixed-point with `decimals` digits after the point, as printf's "%.3f" writes it, at `out`, which
// has room for kFixedBound bytes; returns where it ends (bytes after it may be overwritten).
char* write_fixed(char* out, double value, int decimals);

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
