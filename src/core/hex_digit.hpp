#pragma once
// One hexadecimal digit's value, in either case (chunk sizes, percent escapes).

namespace infergate {

// 0 to 15, or -1 when `c` is no hex digit.
constexpr int hex_value(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

}  // namespace infergate
