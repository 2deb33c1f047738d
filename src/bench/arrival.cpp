#include "bench/arrival.hpp"

#include <cmath>

#include <fmt/format.h>

#include <random>
#include <stdexcept>

namespace infergate::bench {

ArrivalProcess ArrivalProcess::parse(std::string_view text, double rate_per_s) {
  if (!(rate_per_s > 0)) {
    throw std::invalid_argument("--rate must be greater than 0 requests per second");
  }
  if (text == "poisson") {
    return ArrivalProcess(Kind::poisson, rate_per_s, 1);
  }
  if (text == "constant") {
    return ArrivalProcess(Kind::constant, rate_per_s, 0);
  }
  if (text.starts_with("gamma:")) {
    double shape = 0;
    try {
      shape = std::stod(std::string(text.substr(6)));
    } catch (const std::exception&) {
      shape = 0;
    }
    if (shape > 0) {
      return ArrivalProcess(Kind::gamma, rate_per_s, shape);
    }
  }
  throw std::invalid_argument(
      fmt::format("invalid --arrival '{}': expected poisson, constant or gamma:K with K > 0", text));
}

double ArrivalProcess::next_gap(Rng& rng) const {
  switch (kind_) {
    case Kind::constant:
      return 1.0 / rate_;
    case Kind::poisson:
      return std::exponential_distribution<double>(rate_)(rng);
    case Kind::gamma:
      return std::gamma_distribution<double>(shape_, 1.0 / (shape_ * rate_))(rng);
  }
  return 1.0 / rate_;
}

std::string ArrivalProcess::to_string() const {
  switch (kind_) {
    case Kind::constant:
      return "constant";
    case Kind::poisson:
      return "poisson";
    case Kind::gamma:
      return fmt::format("gamma:{}", shape_);
  }
  return {};
}

double ramped_time(double full_rate_s, double ramp_s) {
  if (ramp_s <= 0) {
    return full_rate_s;
  }
  return full_rate_s < ramp_s / 2 ? std::sqrt(2 * ramp_s * full_rate_s) : full_rate_s + ramp_s / 2;
}

}  // namespace infergate::bench
