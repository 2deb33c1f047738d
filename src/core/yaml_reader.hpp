#pragma once
// Reads YAML written by people (gateway.yaml, hardware/model catalogs): every problem is collected
// as "file:line:column: field: what is wrong" so a user fixes them all in one pass, and ${NAME}
// in strings is taken from the environment.
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "core/yaml_error.hpp"

namespace infergate {

class YamlReader {
 public:
  // `environment` resolves ${NAME}; the process environment when null.
  explicit YamlReader(std::string source, const std::map<std::string, std::string>* environment = nullptr)
      : source_(std::move(source)), environment_(environment) {}

  void problem(const YAML::Node& node, const std::string& field, const std::string& what);

  // A scalar with ${NAME} replaced from the environment.
  std::optional<std::string> text(const YAML::Node& node, const std::string& field);

  template <class T>
  std::optional<T> number(const YAML::Node& node, const std::string& field, T minimum, T maximum) {
    T value{};
    if (!node.IsScalar() || !YAML::convert<T>::decode(node, value)) {
      // A number T cannot hold (too large, negative, a fraction for an integer) is out of range, not
      // "not a number".
      double wide = 0;
      if (node.IsScalar() && YAML::convert<double>::decode(node, wide)) {
        problem(node, field,
                fmt::format("must be {}between {} and {}", std::is_integral_v<T> ? "a whole number " : "", minimum,
                            maximum));
      } else {
        problem(node, field, "must be a number");
      }
      return std::nullopt;
    }
    if (!(value >= minimum && value <= maximum)) {
      problem(node, field, fmt::format("must be between {} and {}", minimum, maximum));
      return std::nullopt;
    }
    return value;
  }

  std::optional<bool> boolean(const YAML::Node& node, const std::string& field);

  void milliseconds(const YAML::Node& parent, const char* key, const std::string& field,
                    std::chrono::milliseconds& out);

  // Reports keys the schema does not know, a common source of silent misconfiguration, with the
  // known key it most likely meant ("did you mean 'threads'?") or, when none is close, the list.
  void known_keys(const YAML::Node& map, const std::string& field, std::span<const char* const> keys);
  void known_keys(const YAML::Node& map, const std::string& field, std::initializer_list<const char*> keys) {
    known_keys(map, field, std::span(keys.begin(), keys.size()));
  }

  [[nodiscard]] const std::string& source() const { return source_; }
  std::vector<std::string>& problems() { return problems_; }

 private:
  [[nodiscard]] std::optional<std::string> lookup(const std::string& name) const;

  std::string source_;
  const std::map<std::string, std::string>* environment_;
  std::vector<std::string> problems_;
};

// " (did you mean 'threads'?)" for the key in `keys` closest to `key`, or " (known here: a, b, c)"
// when none is close enough to be a slip.
[[nodiscard]] std::string suggest_key(std::string_view key, std::span<const char* const> keys);
[[nodiscard]] inline std::string suggest_key(std::string_view key, std::initializer_list<const char*> keys) {
  return suggest_key(key, std::span(keys.begin(), keys.size()));
}

// Parses `text`, turning a syntax error into a YamlError that names the file, line and column.
YAML::Node parse_yaml(const std::string& text, const std::string& source_name, const std::string& heading);

}  // namespace infergate
