#include "core/text_writer.hpp"

#include <cstdio>
#include <cstdlib>

namespace infergate {

char* scratch_text(std::size_t bound) {
  // Grows to the largest bound asked for, and is zero-filled only when it grows.
  thread_local std::string scratch;
  if (scratch.size() < bound) {
    scratch.resize(bound);
  }
  return scratch.data();
}

[[gnu::cold]] void text_bound_exceeded(std::size_t bound, std::size_t written) {
  std::fprintf(stderr, "infergate: internal error: %zu bytes of text written where %zu were set aside\n", written,
               bound);
  std::abort();
}

}  // namespace infergate
