#pragma once
// Open-loop arrival processes: the gaps between scheduled send times for a target rate.
#include <string>
#include <string_view>

#include "core/random.hpp"

namespace infergate::bench {

class ArrivalProcess {
 public:
  // "poisson", "constant" or "gamma:K" (K is the shape; K=1 is Poisson, larger is burst-free,
  // smaller is burstier). Throws std::invalid_argument.
  static ArrivalProcess parse(std::string_view text, double rate_per_s);

  // Seconds until the next arrival.
  double next_gap(Rng& rng) const;
  [[nodiscard]] std::string to_string() const;

 private:
  enum class Kind { constant, poisson, gamma };
  ArrivalProcess(Kind kind, double rate, double shape) : kind_(kind), rate_(rate), shape_(shape) {}
  Kind kind_;
  double rate_;
  double shape_;
};

}  // namespace infergate::bench
