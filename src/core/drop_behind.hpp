#pragma once
// Keeps a file that is appended to and not read back (the access log, the usage journal) from
// growing the page cache: each time a step's worth of bytes has been appended, their writeback
// is started, and the pages of the step before, written back by then, are dropped from the cache.
//
// Left alone, such pages stay cached until memory runs short, pushing out pages worth keeping;
// and a cache that keeps growing takes pages the machine has not used yet, which on a virtual
// machine that hands its free memory back to the host costs a fault on the host for each one
// (9.5 against 0.5 µs of system time per 4 KiB appended here, bench/RESULTS.md). Dropped
// pages go back to the allocator and the next appends reuse them.
//
// Advice only: errors are ignored, and where the file cannot take it (a pipe, a terminal), it stops.
#include <cstdint>

namespace infergate {

class DropBehind {
 public:
  static constexpr std::int64_t kStep = std::int64_t{1} << 20;

  explicit DropBehind(std::int64_t step = kStep) : step_(step) {}

  // After the bytes [from, to) were appended to `fd`. Appends by others in between are covered
  // too; `from` before the last call's `to` (the file was cut, or replaced) starts afresh. A range
  // that cannot be (negative, or ending before it starts) is passed over.
  void appended(int fd, std::int64_t from, std::int64_t to);

 private:
  std::int64_t step_;
  std::int64_t unstarted_ = -1;  // the appended bytes from here on have not been sent to disk
  std::int64_t cached_ = 0;      // at a page's start: the pages from here on may be cached
  bool off_ = false;
};

}  // namespace infergate
