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

// Memory for at least `bound` bytes of text, this thread's, valid until its next call.
char* scratch_text(std::size_t bound);

// Stops the program: `written` bytes went where only `bound` were set aside, so memory past them
// may have been overwritten. A bound computed wrong is a bug, which the tests that write every
// field at its widest find in any build.
[[noreturn]] void text_bound_exceeded(std::size_t bound, std::size_t written);

// What `write` writes through a TextWriter, given room for `bound` bytes, in this thread's scratch
// memory: valid until the thread's next call of this or of append_written.
template <class Write>
std::string_view write_scratch(std::size_t bound, Write write) {
  char* const begin = scratch_text(bound);
  TextWriter writer(begin);
  write(writer);
  const auto written = static_cast<std::size_t>(writer.position() - begin);
  if (written > bound) {
    text_bound_exceeded(bound, written);
  }
  return {begin, written};
}

// Appends to `out` what `write` writes through a TextWriter, given room for `bound` bytes. The
// text is written in the thread's scratch memory and then appended: sizing `out` for the bound
// would fill the whole bound with zeros on every call (kilobytes, for a log line whose numbers
// could each be a 300-digit double), for the few hundred bytes a line takes.
template <class Write>
void append_written(std::string& out, std::size_t bound, Write write) {
  const std::string_view text = write_scratch(bound, write);
  out.append(text.data(), text.size());
}

}  // namespace infergate
