#pragma once
// Small, fast, seedable generators. Reproducibility matters more than statistical strength here:
// the same seed must give the same workload and the same simulated text on every machine.
#include <cstdint>
#include <limits>

namespace infergate {

inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The top 53 bits of `bits` as a number in [0, 1): a hash turned into a uniform draw.
inline double unit_interval(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

// SplitMix64; satisfies UniformRandomBitGenerator so <random> distributions accept it.
class Rng {
 public:
  using result_type = std::uint64_t;
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return mix64(state_ - 0x9e3779b97f4a7c15ULL);
  }
  // Uniform in [0, 1).
  double uniform() { return unit_interval((*this)()); }

 private:
  std::uint64_t state_;
};

}  // namespace infergate
