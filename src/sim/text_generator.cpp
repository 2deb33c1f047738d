#include "sim/text_generator.hpp"

#include <array>
#include <cmath>

#include "core/random.hpp"
#include "core/text_tokens.hpp"

namespace infergate::sim {
namespace {

// Each word with its leading space, built once so a token is a view, never an allocation.
const std::array<std::string, 128>& spaced_words() {
  static const auto words = [] {
    std::array<std::string, 128> out;
    const auto vocabulary = common_words();
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = " " + std::string(vocabulary[i % vocabulary.size()]);
    }
    return out;
  }();
  return words;
}

}  // namespace

std::string_view output_token(std::uint64_t seed, int index) {
  const auto& words = spaced_words();
  return words[mix64(seed + static_cast<std::uint64_t>(index)) % words.size()];
}

void append_output(std::uint64_t seed, int first, int count, std::string& out) {
  for (int i = first; i < first + count; ++i) {
    out.append(output_token(seed, i));
  }
}

int natural_length(std::uint64_t seed) {
  const double u = unit_interval(mix64(seed ^ 0x5851f42d4c957f2dULL));
  return static_cast<int>(std::lround(16.0 * std::pow(64.0, u)));
}

}  // namespace infergate::sim
