#include "bench/distribution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>
#include <stdexcept>

namespace infergate::bench {
namespace {

double number(std::string_view text, std::string_view whole) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) {
    throw std::invalid_argument(
        fmt::format("invalid length '{}': expected N, normal:MEAN,SD or uniform:MIN,MAX (token counts)", whole));
  }
  return value;
}

}  // namespace

LengthDistribution LengthDistribution::parse(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    const double value = number(text, text);
    if (value < 1) {
      throw std::invalid_argument(fmt::format("invalid length '{}': must be at least 1", text));
    }
    return fixed(static_cast<int>(value));
  }
  const std::string_view kind = text.substr(0, colon);
  const std::string_view args = text.substr(colon + 1);
  const std::size_t comma = args.find(',');
  if (comma == std::string_view::npos) {
    number("", text);  // throws the usage message
  }
  const double a = number(args.substr(0, comma), text);
  const double b = number(args.substr(comma + 1), text);
  if (kind == "normal") {
    if (a < 1 || b < 0) {
      throw std::invalid_argument(fmt::format("invalid length '{}': the mean must be >= 1 and SD >= 0", text));
    }
    return LengthDistribution(Kind::normal, a, b);
  }
  if (kind == "uniform") {
    if (a < 1 || b < a) {
      throw std::invalid_argument(fmt::format("invalid length '{}': need 1 <= MIN <= MAX", text));
    }
    return LengthDistribution(Kind::uniform, a, b);
  }
  throw std::invalid_argument(
      fmt::format("invalid length '{}': unknown distribution '{}' (normal, uniform)", text, kind));
}

int LengthDistribution::sample(Rng& rng) const {
  double value = a_;
  if (kind_ == Kind::normal) {
    value = std::normal_distribution<double>(a_, b_)(rng);
  } else if (kind_ == Kind::uniform) {
    value = std::floor(a_ + rng.uniform() * (b_ - a_ + 1));
  }
  return std::max(1, static_cast<int>(std::lround(value)));
}

double LengthDistribution::mean() const {
  return kind_ == Kind::uniform ? (a_ + b_) / 2 : a_;
}

std::string LengthDistribution::to_string() const {
  switch (kind_) {
    case Kind::fixed:
      return fmt::format("{}", a_);
    case Kind::normal:
      return fmt::format("normal:{},{}", a_, b_);
    case Kind::uniform:
      return fmt::format("uniform:{},{}", a_, b_);
  }
  return {};
}

}  // namespace infergate::bench
