#include "cli/number_checks.hpp"

namespace infergate::cli {

namespace {

CLI::Validator at_least(bool zero_allowed) {
  return CLI::Validator(
      [zero_allowed](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value)) {
          return "must be a number, got '" + text + "'";
        }
        if (zero_allowed ? value < 0 : value <= 0) {
          return (zero_allowed ? "must be 0 or more, got " : "must be greater than 0, got ") + text;
        }
        return {};
      },
      zero_allowed ? "NONNEGATIVE" : "POSITIVE");
}

}  // namespace

CLI::Validator positive() {
  return at_least(false);
}

CLI::Validator non_negative() {
  return at_least(true);
}

}  // namespace infergate::cli
