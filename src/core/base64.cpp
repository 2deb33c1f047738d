#include "core/base64.hpp"

namespace infergate {

std::string base64_encode(std::span<const unsigned char> bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const unsigned triple = (bytes[i] << 16U) | (bytes[i + 1] << 8U) | bytes[i + 2];
    out += kAlphabet[(triple >> 18U) & 63U];
    out += kAlphabet[(triple >> 12U) & 63U];
    out += kAlphabet[(triple >> 6U) & 63U];
    out += kAlphabet[triple & 63U];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    const unsigned triple = (bytes[i] << 16U) | (rest == 2 ? bytes[i + 1] << 8U : 0U);
    out += kAlphabet[(triple >> 18U) & 63U];
    out += kAlphabet[(triple >> 12U) & 63U];
    out += rest == 2 ? kAlphabet[(triple >> 6U) & 63U] : '=';
    out += '=';
  }
  return out;
}

std::size_t base64_decoded_size(std::string_view text) {
  if (text.size() < 4) {
    return 0;
  }
  const std::size_t padding = text.ends_with("==") ? 2 : text.ends_with('=') ? 1 : 0;
  return text.size() / 4 * 3 - padding;
}

}  // namespace infergate
