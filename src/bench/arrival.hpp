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
  // The same process at `factor` times the rate: a share of the load for one of several senders.
  [[nodiscard]] ArrivalProcess scaled(double factor) const { return {kind_, rate_ * factor, shape_}; }
  [[nodiscard]] double rate() const { return rate_; }
  [[nodiscard]] std::string to_string() const;

 private:
  enum class Kind { constant, poisson, gamma };
  ArrivalProcess(Kind kind, double rate, double shape) : kind_(kind), rate_(rate), shape_(shape) {}
  Kind kind_;
  double rate_;
  double shape_;
};

// Ramp-up: the rate rises linearly from zero to its target over `ramp_s` seconds, then holds.
// Maps a time on the full-rate schedule to the ramped one (an inhomogeneous process by time change:
// the expected arrivals by real time t are R t^2 / 2S during the ramp, R (t - S/2) after it).
double ramped_time(double full_rate_s, double ramp_s);

}  // namespace infergate::bench
