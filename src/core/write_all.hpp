#pragma once
// A write of a whole buffer to a file descriptor, through short writes and interrupted calls,
// that says how far it got when it fails: a caller that appends records can then tell the records
// that went out from those that did not, and whether the file now ends inside one.
#include <cstddef>
#include <string_view>

namespace infergate {

struct WriteAll {
  std::size_t written = 0;  // bytes that went out: all of them unless `error` is set
  int error = 0;            // the system's error number that stopped the write, or 0
};

WriteAll write_all(int fd, std::string_view bytes);

}  // namespace infergate
