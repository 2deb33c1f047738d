#include "bench/target_spec.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace infergate::bench {

TargetSpec parse_target_spec(std::string_view text) {
  auto fail = [&](std::string_view why) {
    throw std::invalid_argument(
        fmt::format("--target '{}': {} (expected NAME=URL[,model=M][,api_key_env=VAR][,price_in=USD][,price_out=USD]"
                    "[,hourly_cost=USD])",
                    text, why));
  };
  auto dollars = [&](std::string_view key, std::string_view value) {
    double usd = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), usd);
    if (ec != std::errc{} || end != value.data() + value.size() || !(usd >= 0) || !std::isfinite(usd)) {
      fail(fmt::format("{} '{}' is not a price in US dollars (0 or more)", key, value));
    }
    return usd;
  };
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    fail("it needs a name before '='");
  }
  TargetSpec spec;
  spec.name = text.substr(0, eq);
  std::string_view rest = text.substr(eq + 1);
  const std::size_t comma = rest.find(',');
  spec.url = rest.substr(0, comma);
  if (!spec.url.starts_with("http://") && !spec.url.starts_with("https://")) {
    fail("the URL must start with http:// or https://");
  }
  rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  while (!rest.empty()) {
    const std::size_t next = rest.find(',');
    const std::string_view option = rest.substr(0, next);
    rest = next == std::string_view::npos ? std::string_view{} : rest.substr(next + 1);
    const std::size_t at = option.find('=');
    const std::string_view key = option.substr(0, at);
    const std::string_view value = at == std::string_view::npos ? std::string_view{} : option.substr(at + 1);
    if (value.empty()) {
      fail(fmt::format("'{}' has no value", option));
    }
    if (key == "model") {
      spec.model = value;
    } else if (key == "api_key_env") {
      spec.api_key_env = value;
    } else if (key == "price_in") {
      spec.price_in = dollars(key, value);
    } else if (key == "price_out") {
      spec.price_out = dollars(key, value);
    } else if (key == "hourly_cost") {
      spec.hourly_cost = dollars(key, value);
    } else {
      fail(fmt::format("unknown option '{}'", key));
    }
  }
  return spec;
}

}  // namespace infergate::bench
