#include "bench/model_mix.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iterator>
#include <stdexcept>

#include "core/random.hpp"

namespace infergate::bench {

namespace {

double total_weight(const std::vector<ModelShare>& mix) {
  double total = 0;
  for (const ModelShare& share : mix) {
    total += share.weight;
  }
  return total;
}

}  // namespace

std::vector<ModelShare> parse_model_mix(std::string_view text) {
  std::vector<ModelShare> mix;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view entry = text.substr(start, comma - start);
    start = comma + 1;
    ModelShare share;
    const std::size_t equals = entry.rfind('=');
    share.name = std::string(entry.substr(0, equals));
    if (equals != std::string_view::npos) {
      const std::string_view weight = entry.substr(equals + 1);
      double value = 0;
      const auto [end, ec] = std::from_chars(weight.data(), weight.data() + weight.size(), value);
      if (ec != std::errc{} || end != weight.data() + weight.size() || !std::isfinite(value) || value <= 0) {
        throw std::invalid_argument(
            fmt::format("--model {}: '{}' is no weight; give NAME=WEIGHT with a number above 0", entry, weight));
      }
      share.weight = value;
    }
    if (share.name.empty()) {
      throw std::invalid_argument(fmt::format(
          "--model '{}': an entry names no model; give NAME or NAME=WEIGHT,NAME=WEIGHT,...", std::string(text)));
    }
    for (const ModelShare& other : mix) {
      if (other.name == share.name) {
        throw std::invalid_argument(fmt::format("--model: '{}' is given twice", share.name));
      }
    }
    mix.push_back(std::move(share));
  }
  return mix;
}

std::size_t model_of_conversation(const std::vector<ModelShare>& mix, std::uint64_t seed, std::uint64_t conversation) {
  if (mix.size() < 2) {
    return 0;
  }
  double point = unit_interval(mix64(mix64(seed ^ 0x6d6f64656cULL) ^ mix64(conversation + 1))) * total_weight(mix);
  for (std::size_t i = 0; i + 1 < mix.size(); ++i) {
    if (point < mix[i].weight) {
      return i;
    }
    point -= mix[i].weight;
  }
  return mix.size() - 1;
}

std::string describe_mix(const std::vector<ModelShare>& mix) {
  if (mix.size() == 1) {
    return mix.front().name;
  }
  const double total = total_weight(mix);
  std::string out;
  for (const ModelShare& share : mix) {
    fmt::format_to(std::back_inserter(out), "{}{} ({:.3g}%)", out.empty() ? "" : " + ", share.name,
                   100 * share.weight / total);
  }
  return out;
}

}  // namespace infergate::bench
