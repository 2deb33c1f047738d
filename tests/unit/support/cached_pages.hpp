#pragma once
// What the page cache holds of a file, for tests of code that keeps files out of it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <string>
#include <vector>

namespace infergate::test_support {

// Whether the page cache holds each page of the file at `path`.
inline std::vector<bool> cached_pages(const std::string& path) {
  std::vector<bool> out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    ADD_FAILURE() << "cannot open " << path;
    return out;
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  void* at = size > 0 ? ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0) : nullptr;
  ::close(fd);
  if (at == MAP_FAILED) {
    ADD_FAILURE() << "cannot map " << path;
    return out;
  }
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((size + page - 1) / page);
  if (size > 0) {
    EXPECT_EQ(::mincore(at, size, resident.data()), 0);
    ::munmap(at, size);
  }
  for (const unsigned char p : resident) {
    out.push_back((p & 1) != 0);
  }
  return out;
}

inline std::size_t count_cached_pages(const std::string& path) {
  std::size_t n = 0;
  for (const bool p : cached_pages(path)) {
    n += p ? 1 : 0;
  }
  return n;
}

// Whether the file system of `directory` drops a file's pages from the cache once they are
// written back and the file says it will not need them (tmpfs, for one, keeps them).
inline bool drops_cached_pages(const std::string& directory) {
  const std::string path = directory + "/drop-probe-" + std::to_string(::getpid());
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return false;
  }
  const std::string bytes(64 << 10, 'p');
  const bool written = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()) &&
                       ::fdatasync(fd) == 0 && ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
  ::close(fd);
  const bool dropped = written && count_cached_pages(path) == 0;
  ::unlink(path.c_str());
  return dropped;
}

}  // namespace infergate::test_support
