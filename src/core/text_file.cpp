#include "core/text_file.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace infergate {

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read " + path);
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace infergate
