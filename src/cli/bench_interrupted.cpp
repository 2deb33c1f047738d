#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>

#include "cli/bench_plan.hpp"

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

void say_interrupted(int signal_number, std::string_view covered) {
  fmt::print(stderr, "infergate bench: interrupted by {}: the results cover {}; requests in flight were dropped\n",
             signal_name(signal_number), covered);
}

void end_interrupted(int signal_number) {
  throw CLI::RuntimeError(128 + signal_number);
}

}  // namespace infergate::cli
