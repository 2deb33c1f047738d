#pragma once
// Checks for numeric options that say what is wrong in words. CLI11 2.1's PositiveNumber and
// NonNegativeNumber are ranges up to DBL_MAX and print that bound in full, 300 digits, when a
// value is outside them.
#include <CLI/CLI.hpp>

#include <string>

namespace infergate::cli {

// Both refuse what is not a finite number ("inf", "nan", "1e400").
// The value must be greater than zero.
[[nodiscard]] CLI::Validator positive();
// The value must be zero or more.
[[nodiscard]] CLI::Validator non_negative();

}  // namespace infergate::cli
