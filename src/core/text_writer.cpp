#include "core/text_writer.hpp"

namespace infergate {

char* scratch_text(std::size_t bound) {
  // Grows to the largest bound asked for, and is zero-filled only when it grows.
  thread_local std::string scratch;
  if (scratch.size() < bound) {
    scratch.resize(bound);
  }
  return scratch.data();
}

}  // namespace infergate
