#pragma once
// Writing a whole report file, with a message a user can act on when it fails.
#include <string>
#include <string_view>

namespace infergate::report {

// Throws std::runtime_error naming the file.
void write_file(const std::string& path, std::string_view text);

}  // namespace infergate::report
