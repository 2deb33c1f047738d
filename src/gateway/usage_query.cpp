#include "gateway/usage_query.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <string>

#include "core/closest_name.hpp"
#include "http/percent_decode.hpp"

namespace infergate::gateway {

namespace {

bool is_day(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') {
    return false;
  }
  for (const std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (text[i] < '0' || text[i] > '9') {
      return false;
    }
  }
  const int month = (text[5] - '0') * 10 + (text[6] - '0');
  const int day = (text[8] - '0') * 10 + (text[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

}  // namespace

std::variant<UsageFilter, std::string> parse_usage_query(std::string_view query) {
  static const std::array<std::string, 4> kNames{"key_id", "model", "since", "until"};
  UsageFilter filter;
  std::array<bool, 4> seen{};
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (pair.empty()) {
      continue;
    }
    const std::size_t eq = pair.find('=');
    const std::string name(pair.substr(0, eq));
    const std::optional<std::string> value =
        http::percent_decode(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1));
    std::size_t which = 0;
    while (which < kNames.size() && kNames[which] != name) {
      ++which;
    }
    if (which == kNames.size()) {
      return fmt::format("unknown query parameter '{}'{}; /admin/usage takes key_id, model, since and until", name,
                         did_you_mean(name, kNames));
    }
    if (seen[which]) {
      return fmt::format("'{}' is given twice", name);
    }
    seen[which] = true;
    if (!value) {
      return fmt::format("'{}' has a '%' not followed by two hex digits", name);
    }
    if ((name == "since" || name == "until") && !is_day(*value)) {
      return fmt::format("'{}' must be a UTC day, YYYY-MM-DD; got '{}'", name, *value);
    }
    std::string* fields[] = {&filter.key_id, &filter.model, &filter.since, &filter.until};
    *fields[which] = *value;
  }
  if (!filter.since.empty() && !filter.until.empty() && filter.since > filter.until) {
    return fmt::format("'since' ({}) is after 'until' ({})", filter.since, filter.until);
  }
  return filter;
}

}  // namespace infergate::gateway
