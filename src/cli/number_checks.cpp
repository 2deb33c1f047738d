#include "cli/number_checks.hpp"

#include <cmath>
#include <utility>

namespace infergate::cli {

namespace {

// `allowed` says whether a value passes; `rule` says in words what passes.
CLI::Validator number_check(bool (*allowed)(double), const std::string& rule, std::string name) {
  return CLI::Validator(
      [allowed, rule](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value)) {
          return "must be a number, got '" + text + "'";
        }
        if (!std::isfinite(value)) {  // "inf", "nan", or "1e400", which reads as infinity
          return "must be a finite number, got '" + text + "'";
        }
        return allowed(value) ? std::string() : "must be " + rule + ", got " + text;
      },
      std::move(name));
}

}  // namespace

CLI::Validator positive() {
  return number_check([](double v) { return v > 0; }, "greater than 0", "POSITIVE");
}

CLI::Validator non_negative() {
  return number_check([](double v) { return v >= 0; }, "0 or more", "NONNEGATIVE");
}

}  // namespace infergate::cli
