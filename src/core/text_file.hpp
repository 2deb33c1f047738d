#pragma once
#include <istream>
#include <string>

namespace infergate {

// The whole file; throws std::runtime_error naming the path when it cannot be read.
std::string read_text_file(const std::string& path);

// Calls `f(line, number)` for each line of `in` that holds more than blanks, numbered from 1 as an
// editor shows them (for messages that name the line at fault).
template <class F>
void for_each_filled_line(std::istream& in, F&& f) {
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") != std::string::npos) {
      f(line, number);
    }
  }
}

}  // namespace infergate
