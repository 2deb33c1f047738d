#include "core/append_number.hpp"

#include <charconv>
#include <cmath>

namespace infergate {

char* write_shortest(char* out, double value) {
  return std::to_chars(out, out + kShortestBound, value).ptr;
}

char* write_decimal(char* out, std::int64_t value) {
  return std::to_chars(out, out + kDecimalBound, value).ptr;
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

}  // namespace infergate
