#pragma once
// Token-length distributions as written on the command line: "512", "normal:512,64", "uniform:100,900".
#include <string>
#include <string_view>

#include "core/random.hpp"

namespace infergate::bench {

class LengthDistribution {
 public:
  enum class Kind { fixed, normal, uniform };

  // Throws std::invalid_argument naming the accepted forms.
  static LengthDistribution parse(std::string_view text);
  static LengthDistribution fixed(int value) { return LengthDistribution(Kind::fixed, value, 0); }

  // A draw of at least 1.
  int sample(Rng& rng) const;
  [[nodiscard]] double mean() const;
  [[nodiscard]] std::string to_string() const;

 private:
  LengthDistribution(Kind kind, double a, double b) : kind_(kind), a_(a), b_(b) {}
  Kind kind_;
  double a_;
  double b_;
};

}  // namespace infergate::bench
