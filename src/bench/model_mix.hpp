#pragma once
// `--model A=3,B=1`: a load that spreads its conversations over several models, as the traffic a
// gateway in front of many carries. Each conversation keeps one model for all its turns, drawn
// from the seed by weight, so a run is repeatable and a model's share is as asked.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace infergate::bench {

struct ModelShare {
  std::string name;
  double weight = 1;
};

// "A", or "A=W,B=W,..." (a name without "=W" weighs 1). Throws std::invalid_argument naming the
// entry at fault: an empty name, a weight that is not a number above 0, a name given twice.
std::vector<ModelShare> parse_model_mix(std::string_view text);

// The index in `mix` of the model `conversation` asks for; 0 when there is one.
std::size_t model_of_conversation(const std::vector<ModelShare>& mix, std::uint64_t seed, std::uint64_t conversation);

// "A (75%) + B (25%)", as a run's heading names what it asks for.
std::string describe_mix(const std::vector<ModelShare>& mix);

}  // namespace infergate::bench
