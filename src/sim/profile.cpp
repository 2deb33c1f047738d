#include "sim/profile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <stdexcept>
#include <vector>

#include "core/closest_name.hpp"

namespace infergate::sim {
namespace {

// "unknown model 'gema-4-31b' (did you mean 'gemma-4-31b'?); known: ...".
template <class Spec>
std::string unknown(std::string_view what, std::string_view name, const std::deque<Spec>& specs) {
  std::vector<std::string> names;
  names.reserve(specs.size());
  for (const auto& s : specs) {
    names.push_back(s.id);
  }
  return fmt::format("unknown {} '{}'{}; known: {}", what, name, did_you_mean(name, names), fmt::join(names, ", "));
}

}  // namespace

Profile parse_profile(std::string_view text, const Catalog& catalog) {
  auto fail = [&](const std::string& why) {
    throw std::invalid_argument(
        fmt::format("invalid profile '{}': {} (expected MODEL:PRECISION@HARDWARE[xN], "
                    "e.g. gemma-4-31b:bf16@h200 or llama-3.3-70b:fp8@h100x2)",
                    text, why));
  };
  const std::size_t colon = text.find(':');
  const std::size_t at = text.find('@');
  if (colon == std::string_view::npos || at == std::string_view::npos || at < colon) {
    fail("missing ':' or '@'");
  }
  const std::string_view model = text.substr(0, colon);
  const std::string_view precision = text.substr(colon + 1, at - colon - 1);
  std::string_view hardware = text.substr(at + 1);

  Profile profile;
  if (!(profile.model = catalog.find_model(model))) {
    fail(unknown("model", model, catalog.models()));
  }
  if (!(profile.precision = catalog.find_precision(precision))) {
    fail(unknown("precision", precision, catalog.precisions()));
  }
  if (!(profile.hardware = catalog.find_hardware(hardware))) {
    const std::size_t x = hardware.rfind('x');
    if (x != std::string_view::npos && x + 1 < hardware.size()) {
      const std::string_view count = hardware.substr(x + 1);
      int devices = 0;
      auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), devices);
      if (ec == std::errc{} && end == count.data() + count.size()) {
        if (devices < 1 || devices > 4096) {
          fail("the device count must be from 1 to 4096");
        }
        profile.devices = devices;
        hardware = hardware.substr(0, x);
        profile.hardware = catalog.find_hardware(hardware);
      }
    }
    if (profile.hardware == nullptr) {
      fail(unknown("hardware", hardware, catalog.hardware()));
    }
  }
  return profile;
}

std::string Profile::to_string() const {
  std::string out = fmt::format("{}:{}@{}", model->id, precision->id, hardware->id);
  if (devices > 1) {
    out += fmt::format("x{}", devices);
  }
  return out;
}

}  // namespace infergate::sim
