#pragma once
// A command a signal cut short (bench/interrupt.hpp) writes what it measured, says so on standard
// error, and ends as a process that signal stopped does (exit status 128 + the signal), so that
// scripts tell it from a run that finished.
#include <string>
#include <string_view>

namespace infergate::cli {

// "infergate COMMAND: interrupted by SIGINT: the results cover COVERED; requests in flight were
// dropped", on standard error.
void say_interrupted(int signal_number, std::string_view covered, std::string_view command = "bench");
[[noreturn]] void end_interrupted(int signal_number);
// "SIGINT", "SIGTERM": what a JSON result's "interrupted" names.
std::string signal_name(int signal_number);

}  // namespace infergate::cli
