#pragma once
// What CLI11 leaves unsaid when a command line does not parse: the command or option the user most
// likely meant ("did you mean --concurrency?"), or the commands there are.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace infergate::cli {

// Lines of advice after `app` failed to parse, none when there is none to give.
[[nodiscard]] std::vector<std::string> parse_hints(const CLI::App& app);

}  // namespace infergate::cli
