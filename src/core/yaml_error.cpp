#include "core/yaml_error.hpp"

namespace infergate {

namespace {

std::string join(const std::string& heading, const std::vector<std::string>& lines) {
  std::string out = heading;
  for (const auto& line : lines) {
    out += "\n  " + line;
  }
  return out;
}

}  // namespace

YamlError::YamlError(const std::string& heading, std::vector<std::string> problems)
    : std::runtime_error(join(heading, problems)), problems_(std::move(problems)) {}

}  // namespace infergate
