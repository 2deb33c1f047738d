#include "core/drop_behind.hpp"

#include <fcntl.h>
#include <unistd.h>

namespace infergate {

namespace {

std::int64_t page_start(std::int64_t offset) {
  static const std::int64_t page = sysconf(_SC_PAGESIZE);
  return offset - offset % page;
}

}  // namespace

void DropBehind::appended(int fd, std::int64_t from, std::int64_t to) {
  if (off_ || from < 0 || to < from) {
    return;  // a caller whose file moved under it (lseek failed, or the file was cut meanwhile)
  }
  if (unstarted_ < 0 || from < unstarted_) {
    unstarted_ = from;
    cached_ = page_start(from);
  }
  if (to - unstarted_ < step_) {
    return;
  }
  if (::sync_file_range(fd, unstarted_, to - unstarted_, SYNC_FILE_RANGE_WRITE) != 0) {
    off_ = true;  // not a file on disk
    return;
  }
  // The step before was sent to disk at the last call: it is written by now, or nearly, and
  // only pages written back can be dropped.
  const std::int64_t written = page_start(unstarted_);
  if (written > cached_) {
    ::sync_file_range(fd, cached_, written - cached_,
                      SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    ::posix_fadvise(fd, cached_, written - cached_, POSIX_FADV_DONTNEED);
    cached_ = written;
  }
  unstarted_ = to;
}

}  // namespace infergate
