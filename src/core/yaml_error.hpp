#pragma once
// Every problem found in a YAML file people wrote (gateway.yaml, a catalog), one per line after a
// heading, so a user fixes them all in one pass. Kept apart from yaml_reader.hpp so that code
// catching it does not include yaml-cpp.
#include <stdexcept>
#include <string>
#include <vector>

namespace infergate {

class YamlError : public std::runtime_error {
 public:
  YamlError(const std::string& heading, std::vector<std::string> problems);
  [[nodiscard]] const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

}  // namespace infergate
