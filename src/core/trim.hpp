#pragma once
// Blank-trimming of text fields: HTTP's optional whitespace, values in fault specs.
#include <string_view>

namespace infergate {

// `s` without leading and trailing spaces and tabs.
inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace infergate
