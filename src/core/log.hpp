#pragma once
#include <string_view>

namespace infergate {

// Diagnostics go to standard error so standard output stays machine-readable (the base URL line,
// tables, JSON). Level names are spdlog's: trace, debug, info, warn, error, off.
void setup_logging(std::string_view level);

}  // namespace infergate
