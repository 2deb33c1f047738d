#pragma once
// An option checked by the parser that will read it, as the command line is parsed: a mistake is
// named (in the parser's words) before anything runs.
#include <CLI/CLI.hpp>

#include <stdexcept>
#include <string>

namespace infergate::cli {

// `parse(text)` throws std::invalid_argument, whose message CLI11 shows, for a value it refuses.
template <class Parse>
CLI::Validator checked_by(Parse parse) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        try {
          (void)parse(text);
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      "");
}

}  // namespace infergate::cli
