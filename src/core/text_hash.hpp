#pragma once
// A hash for unordered containers keyed by std::string that are searched with a string_view
// (a view into a request), so that a lookup builds no string.
#include <cstddef>
#include <functional>
#include <string_view>

namespace infergate {

struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

}  // namespace infergate
