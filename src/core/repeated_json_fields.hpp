#pragma once
// A run of JSON string fields, `,"name":"value"` each, as it was written last. The lines written
// for every request (the access log's, the usage journal's) carry a few fields whose values repeat
// from one line to the next (a route's model and provider, a caller's key): comparing the values
// with the last ones costs a fraction of escaping them again.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "core/byte_vector.hpp"
#include "core/text_writer.hpp"

namespace infergate {

template <std::size_t N>
class RepeatedJsonFields {
 public:
  // The fields' names, in order; each must need no escaping and outlive this object.
  explicit RepeatedJsonFields(const std::array<std::string_view, N>& names) : names_(names) {}

  // The fields holding `values`, valid until the next call.
  std::string_view text(const std::array<std::string_view, N>& values) {
    if (text_.empty() || !same(values)) {
      rebuild(values);
    }
    return text_;
  }

 private:
  [[nodiscard]] bool same(const std::array<std::string_view, N>& values) const {
    for (std::size_t i = 0; i < N; ++i) {
      if (!same_bytes(values_[i], values[i])) {
        return false;
      }
    }
    return true;
  }

  void rebuild(const std::array<std::string_view, N>& values) {
    std::size_t bound = 0;
    for (std::size_t i = 0; i < N; ++i) {
      bound += names_[i].size() + 4 + json_string_bound(values[i].size());  // ,"name":
    }
    text_.assign(write_scratch(bound, [&](TextWriter& w) {
      for (std::size_t i = 0; i < N; ++i) {
        w.literal(",\"");
        w.text(names_[i]);
        w.literal("\":");
        w.json_string(values[i]);
      }
    }));
    for (std::size_t i = 0; i < N; ++i) {
      values_[i].assign(values[i]);
    }
  }

  std::array<std::string_view, N> names_;
  std::array<std::string, N> values_;
  std::string text_;  // never empty once built: it holds the names
};

}  // namespace infergate
