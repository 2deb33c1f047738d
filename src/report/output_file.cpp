#include "report/output_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

namespace infergate::report {

void write_file(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    throw std::runtime_error(fmt::format("cannot write '{}'", path));
  }
  out << text;
  if (!out.flush()) {
    throw std::runtime_error(fmt::format("writing '{}' failed", path));
  }
}

}  // namespace infergate::report
