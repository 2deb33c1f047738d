#pragma once
// Deterministic pseudo-text: the same prompt gives the same words and the same natural length on
// every run, so outputs can be compared byte for byte.
#include <cstdint>
#include <string>
#include <string_view>

namespace infergate::sim {

// The token at `index` of the output seeded by `seed`: one word with a leading space.
std::string_view output_token(std::uint64_t seed, int index);

// Appends tokens [first, first + count) of the output to `out`.
void append_output(std::uint64_t seed, int first, int count, std::string& out);

// Where the model would stop on its own (its end-of-sequence token), when ignore_eos is off:
// log-uniform between 16 and 1024 tokens, fixed by the seed.
int natural_length(std::uint64_t seed);

}  // namespace infergate::sim
