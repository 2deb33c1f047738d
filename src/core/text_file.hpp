#pragma once
#include <string>

namespace infergate {

// The whole file; throws std::runtime_error naming the path when it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace infergate
