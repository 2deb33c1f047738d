#include "core/closest_name.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace infergate {

namespace {

// Levenshtein distance, ignoring case.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same =
          std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      const std::size_t next = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::string> closest_name(std::string_view typed, std::span<const std::string> names) {
  const std::string* best = nullptr;
  std::size_t best_distance = 0;
  for (const std::string& name : names) {
    const std::size_t d = edit_distance(typed, name);
    if (best == nullptr || d < best_distance) {
      best = &name;
      best_distance = d;
    }
  }
  if (best == nullptr || best_distance > std::max<std::size_t>(1, typed.size() / 3)) {
    return std::nullopt;
  }
  return *best;
}

std::string did_you_mean(std::string_view typed, std::span<const std::string> names) {
  const auto meant = closest_name(typed, names);
  return meant ? " (did you mean '" + *meant + "'?)" : "";
}

}  // namespace infergate
