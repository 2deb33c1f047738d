#include "core/yaml_reader.hpp"

#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "core/closest_name.hpp"

namespace infergate {

std::string suggest_key(std::string_view key, std::span<const char* const> keys) {
  const std::vector<std::string> names(keys.begin(), keys.end());
  const std::string meant = did_you_mean(key, names);
  return meant.empty() ? fmt::format(" (known here: {})", fmt::join(names, ", ")) : meant;
}

void YamlReader::problem(const YAML::Node& node, const std::string& field, const std::string& what) {
  // A key missing from a const mapping is an invalid node, which has no position to report.
  const YAML::Mark mark = node.IsDefined() ? node.Mark() : YAML::Mark::null_mark();
  if (mark.line >= 0) {
    problems_.push_back(fmt::format("{}:{}:{}: {}: {}", source_, mark.line + 1, mark.column + 1, field, what));
  } else {
    problems_.push_back(fmt::format("{}: {}: {}", source_, field, what));
  }
}

std::optional<std::string> YamlReader::text(const YAML::Node& node, const std::string& field) {
  if (!node.IsScalar()) {
    problem(node, field, "must be a string");
    return std::nullopt;
  }
  const std::string& raw = node.Scalar();
  std::string out;
  for (std::size_t i = 0; i < raw.size();) {
    if (raw.compare(i, 2, "${") == 0) {
      const std::size_t close = raw.find('}', i);
      if (close == std::string::npos) {
        problem(node, field, "unterminated ${...}");
        return std::nullopt;
      }
      const std::string name = raw.substr(i + 2, close - i - 2);
      const std::optional<std::string> value = lookup(name);
      if (!value) {
        problem(node, field, fmt::format("environment variable {} is not set", name));
        return std::nullopt;
      }
      out += *value;
      i = close + 1;
    } else {
      out += raw[i++];
    }
  }
  return out;
}

std::optional<bool> YamlReader::boolean(const YAML::Node& node, const std::string& field) {
  bool value = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
    problem(node, field, "must be true or false");
    return std::nullopt;
  }
  return value;
}

void YamlReader::milliseconds(const YAML::Node& parent, const char* key, const std::string& field,
                              std::chrono::milliseconds& out) {
  if (const YAML::Node node = parent[key]) {
    if (auto v = number<std::int64_t>(node, field + "." + key, 1, 86'400'000)) {
      out = std::chrono::milliseconds(*v);
    }
  }
}

void YamlReader::known_keys(const YAML::Node& map, const std::string& field, std::span<const char* const> keys) {
  for (const auto& entry : map) {
    const std::string key = entry.first.Scalar();
    if (std::find_if(keys.begin(), keys.end(), [&](const char* k) { return key == k; }) == keys.end()) {
      problem(entry.first, field.empty() ? key : std::string(field).append(".").append(key),
              "unknown field" + suggest_key(key, keys));
    }
  }
}

std::optional<std::string> YamlReader::lookup(const std::string& name) const {
  if (environment_ != nullptr) {
    auto it = environment_->find(name);
    return it == environment_->end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  const char* value = std::getenv(name.c_str());
  return value ? std::optional<std::string>(value) : std::nullopt;
}

YAML::Node parse_yaml(const std::string& text, const std::string& source_name, const std::string& heading) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw YamlError(heading, {fmt::format("{}:{}:{}: {}", source_name, e.mark.line + 1, e.mark.column + 1, e.msg)});
  }
}

}  // namespace infergate
