#include "core/write_all.hpp"

#include <unistd.h>

#include <cerrno>

namespace infergate {

WriteAll write_all(int fd, std::string_view bytes) {
  WriteAll result;
  while (result.written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + result.written, bytes.size() - result.written);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      // A write of nothing is a file that takes no more without saying why.
      result.error = n == 0 ? EIO : errno;
      break;
    }
    result.written += static_cast<std::size_t>(n);
  }
  return result;
}

}  // namespace infergate
