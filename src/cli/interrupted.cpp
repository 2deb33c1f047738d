#include "cli/interrupted.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>

namespace infergate::cli {

std::string signal_name(int signal_number) {
  switch (signal_number) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return fmt::format("signal {}", signal_number);
  }
}

void say_interrupted(int signal_number, std::string_view covered, std::string_view command) {
  fmt::print(stderr, "infergate {}: interrupted by {}: the results cover {}; requests in flight were dropped\n",
             command, signal_name(signal_number), covered);
}

void end_interrupted(int signal_number) {
  throw CLI::RuntimeError(128 + signal_number);
}

}  // namespace infergate::cli
