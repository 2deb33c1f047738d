#pragma once
// A line of text written through a pointer into memory already sized for it. The lines formatted
// on every request (the access log's, the usage journal's) are dozens of short pieces, and each
// std::string::append is a call that checks capacity and copies through memcpy; here a literal is
// copied with its size known at compile time (a few moves) and numbers are written in place. The
// caller sizes the memory from the bounds the pieces declare (json_string_bound, kDecimalBound,
// kFixedBound, kShortestBound) and the literals' sizes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/append_number.hpp"
#include "core/json_string.hpp"

namespace infergate {

class TextWriter {
 public:
  explicit TextWriter(char* at) : p_(at) {}

  template <std::size_t N>
  void literal(const char (&text)[N]) {
    std::memcpy(p_, text, N - 1);
    p_ += N - 1;
  }
  void text(std::string_view s) {
    if (!s.empty()) {  // an empty view may have no data at all, which memcpy may not be given
      std::memcpy(p_, s.data(), s.size());
      p_ += s.size();
    }
  }
  void put(char c) { *p_++ = c; }
  void decimal(std::int64_t value) { p_ = write_decimal(p_, value); }
  void fixed(double value, int decimals) { p_ = write_fixed(p_, value, decimals); }
  void shortest(double value) { p_ = write_shortest(p_, value); }
  void json_string(std::string_view text) { p_ = write_json_string(p_, text); }

  [[nodiscard]] char* position() const { return p_; }

 private:
  char* p_;
};

// Appends to `out` what `write` writes through a TextWriter, given room for `bound` bytes.
template <class Write>
void append_written(std::string& out, std::size_t bound, Write write) {
  const std::size_t at = out.size();
  out.resize(at + bound);
  TextWriter writer(out.data() + at);
  write(writer);
  out.resize(static_cast<std::size_t>(writer.position() - out.data()));
}

}  // namespace infergate
