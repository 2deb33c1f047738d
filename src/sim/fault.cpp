#include "sim/fault.hpp"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

#include "core/trim.hpp"

namespace infergate::sim {

namespace {

std::optional<int> parse_int(std::string_view text, int minimum, int maximum) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < minimum || value > maximum) {
    return std::nullopt;
  }
  return value;
}

// Applies one `key[=value]` entry of the fault header.
std::optional<std::string> apply(std::string_view key, std::string_view value, bool has_value, Fault& f) {
  auto number = [&](int minimum, int maximum) -> std::optional<int> {
    return has_value ? parse_int(value, minimum, maximum) : std::nullopt;
  };
  auto bad = [&](std::string_view expected) { return fmt::format("{}: '{}' needs {}", kFaultHeader, key, expected); };
  constexpr int kMaxMs = 3'600'000;
  if (key == "error") {
    f.error_status = has_value ? parse_int(value, 400, 599) : 500;
    return f.error_status ? std::nullopt : std::optional(bad("an HTTP status from 400 to 599"));
  }
  if (key == "rate_limit") {
    f.rate_limit_after_s = has_value ? parse_int(value, 0, 86'400) : 1;
    return f.rate_limit_after_s ? std::nullopt : std::optional(bad("a Retry-After in seconds (0 to 86400)"));
  }
  if (key == "stall_first_ms" || key == "stall_between_ms") {
    auto ms = number(0, kMaxMs);
    if (!ms) {
      return bad("milliseconds (0 to 3600000)");
    }
    (key == "stall_first_ms" ? f.stall_first : f.stall_between) = std::chrono::milliseconds(*ms);
    return std::nullopt;
  }
  if (key == "reset_after" || key == "malformed_after") {
    auto tokens = number(0, 1 << 30);
    if (!tokens) {
      return bad("a number of tokens");
    }
    (key == "reset_after" ? f.reset_after_tokens : f.malformed_after_tokens) = *tokens;
    return std::nullopt;
  }
  if ((key == "no_usage" || key == "no_ignore_eos") && !has_value) {
    (key == "no_usage" ? f.no_usage : f.no_ignore_eos) = true;
    return std::nullopt;
  }
  return fmt::format(
      "{}: unknown fault '{}' (error[=STATUS], rate_limit[=SECONDS], stall_first_ms=MS, stall_between_ms=MS, "
      "reset_after=TOKENS, malformed_after=TOKENS, no_usage, no_ignore_eos)",
      kFaultHeader, key);
}

}  // namespace

FaultInjector::FaultInjector(FaultRates rates) : rates_(rates), rng_(rates.seed) {
  for (double rate : {rates_.error, rates_.rate_limit, rates_.stall, rates_.reset, rates_.malformed}) {
    if (!(rate >= 0 && rate <= 1)) {
      throw std::invalid_argument(fmt::format("fault rates are shares of requests from 0 to 1, not {}", rate));
    }
  }
  if (rates_.error_status < 400 || rates_.error_status > 599) {
    throw std::invalid_argument(
        fmt::format("--fault-error-status {} is not an error status (400-599)", rates_.error_status));
  }
}

std::optional<std::string> FaultInjector::plan(std::string_view header, Fault& out) {
  Fault f;
  if (draw(rates_.error)) {
    f.error_status = rates_.error_status;
  } else if (draw(rates_.rate_limit)) {
    f.rate_limit_after_s = rates_.retry_after_s;
  }
  if (draw(rates_.stall)) {
    f.stall_first = rates_.stall_first;
    f.stall_between = rates_.stall_between;
  }
  if (draw(rates_.reset)) {
    f.reset_after_tokens = rates_.reset_after_tokens;
  }
  if (draw(rates_.malformed)) {
    f.malformed_after_tokens = rates_.malformed_after_tokens;
  }
  f.no_usage = rates_.no_usage;
  f.no_ignore_eos = rates_.no_ignore_eos;

  while (!header.empty()) {
    const std::size_t comma = header.find(',');
    const std::string_view entry = trim_blanks(header.substr(0, comma));
    header = comma == std::string_view::npos ? std::string_view{} : header.substr(comma + 1);
    if (entry.empty()) {
      continue;
    }
    const std::size_t eq = entry.find('=');
    const std::string_view key = trim_blanks(entry.substr(0, eq));
    const std::string_view value =
        eq == std::string_view::npos ? std::string_view{} : trim_blanks(entry.substr(eq + 1));
    if (auto error = apply(key, value, eq != std::string_view::npos, f)) {
      return error;
    }
  }

  counters_.errors += f.error_status ? 1 : 0;
  counters_.rate_limited += !f.error_status && f.rate_limit_after_s ? 1 : 0;
  counters_.stalls += f.stall_first.count() > 0 || f.stall_between.count() > 0 ? 1 : 0;
  counters_.resets += f.reset_after_tokens ? 1 : 0;
  counters_.malformed += f.malformed_after_tokens ? 1 : 0;
  out = f;
  return std::nullopt;
}

void FaultInjector::append_metrics(std::string& out) const {
  out +=
      "# HELP infergate_sim_faults_total Requests a fault was injected into, by kind.\n"
      "# TYPE infergate_sim_faults_total counter\n";
  for (auto [kind, value] : {std::pair{"error", counters_.errors}, std::pair{"rate_limit", counters_.rate_limited},
                             std::pair{"stall", counters_.stalls}, std::pair{"reset", counters_.resets},
                             std::pair{"malformed", counters_.malformed}}) {
    fmt::format_to(std::back_inserter(out), "infergate_sim_faults_total{{kind=\"{}\"}} {}\n", kind, value);
  }
}

}  // namespace infergate::sim
