#pragma once
// Output files checked before the work that fills them: a benchmark that ran for an hour must not
// lose its result at the end to a typo in a path.
#include <string>
#include <string_view>

namespace infergate {

// Throws std::runtime_error, naming `option` and the reason, when `path` could not be written now:
// its folder is missing or not writable, or the path is a folder or a file that is not writable.
// Nothing is created or changed. An empty path (the option not given) passes.
void check_writable(const std::string& path, std::string_view option);

}  // namespace infergate
