#include "core/drop_behind.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "support/cached_pages.hpp"

namespace infergate {
namespace {

constexpr std::int64_t kPage = 4096;
constexpr std::int64_t kStep = 64 << 10;
constexpr std::int64_t kAppend = 16 << 10;

// A file in the working directory (the build tree: a disk, where /tmp may be memory), removed
// at the end.
class ScratchFile {
 public:
  ScratchFile() {
    char name[] = "drop-behind-XXXXXX";
    fd_ = ::mkstemp(name);
    path_ = name;
  }
  ~ScratchFile() {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  [[nodiscard]] int fd() const { return fd_; }

  // Appends `size` bytes of `fill`; returns the offset they start at.
  std::int64_t append(std::int64_t size, char fill) {
    const std::int64_t from = ::lseek(fd_, 0, SEEK_END);
    const std::string bytes(static_cast<std::size_t>(size), fill);
    EXPECT_EQ(::write(fd_, bytes.data(), bytes.size()), size);
    return from;
  }

  [[nodiscard]] std::vector<bool> cached() const { return test_support::cached_pages(path_); }

  [[nodiscard]] std::string contents() const {
    const std::int64_t size = ::lseek(fd_, 0, SEEK_END);
    std::string out(static_cast<std::size_t>(size), '\0');
    EXPECT_EQ(::pread(fd_, out.data(), out.size(), 0), size);
    return out;
  }

 private:
  int fd_ = -1;
  std::string path_;
};

// Appends `steps` steps of kAppend-sized writes, telling `drop` (when given) after each.
void append_steps(ScratchFile& file, int steps, DropBehind* drop) {
  for (int i = 0; i < steps * (kStep / kAppend); ++i) {
    const std::int64_t from = file.append(kAppend, static_cast<char>('a' + i % 26));
    if (drop != nullptr) {
      drop->appended(file.fd(), from, from + kAppend);
    }
  }
}

// Tests of what the page cache holds: skipped where the file system keeps pages whatever it is
// told (tmpfs).
class DropBehindOnDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test_support::drops_cached_pages(".")) {
      GTEST_SKIP() << "this file system keeps pages cached whatever it is told";
    }
  }
};

std::vector<bool> pages(std::int64_t dropped, std::int64_t kept) {
  std::vector<bool> out(static_cast<std::size_t>(dropped / kPage), false);
  out.resize(out.size() + static_cast<std::size_t>(kept / kPage), true);
  return out;
}

TEST_F(DropBehindOnDisk, DropsAStepOnceTheNextHasBeenSentToDisk) {
  ScratchFile dropped;
  DropBehind drop(kStep);
  append_steps(dropped, 4, &drop);
  // Each step is sent to disk once it is full and dropped when the next one is: steps 1-3 are
  // gone, step 4, just sent, stays.
  EXPECT_EQ(dropped.cached(), pages(3 * kStep, kStep));

  ScratchFile kept;
  append_steps(kept, 4, nullptr);
  EXPECT_EQ(kept.cached(), pages(0, 4 * kStep));
}

TEST(DropBehind, KeepsEveryByte) {
  ScratchFile with;
  DropBehind drop(kStep);
  append_steps(with, 5, &drop);
  ScratchFile without;
  append_steps(without, 5, nullptr);
  EXPECT_EQ(with.contents(), without.contents());
}

TEST_F(DropBehindOnDisk, StartsAfreshWhenTheFileIsCut) {
  ScratchFile file;
  DropBehind drop(kStep);
  append_steps(file, 4, &drop);
  ASSERT_EQ(::ftruncate(file.fd(), 0), 0);
  append_steps(file, 2, &drop);
  EXPECT_EQ(file.cached(), pages(kStep, kStep));
}

TEST_F(DropBehindOnDisk, PassesOverARangeThatCannotBe) {
  ScratchFile file;
  DropBehind drop(kStep);
  append_steps(file, 1, &drop);
  drop.appended(file.fd(), -1 - kAppend, -1);  // as from a caller whose lseek failed
  drop.appended(file.fd(), 2 * kStep, kStep);
  append_steps(file, 3, &drop);
  EXPECT_EQ(file.cached(), pages(3 * kStep, kStep));
}

TEST(DropBehind, LeavesAPipeAlone) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  DropBehind drop(kPage);
  const std::string bytes(kPage, 'x');
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(::write(ends[1], bytes.data(), bytes.size()), kPage);
    drop.appended(ends[1], i * kPage, (i + 1) * kPage);
    std::string got(kPage, '\0');
    ASSERT_EQ(::read(ends[0], got.data(), got.size()), kPage);
    EXPECT_EQ(got, bytes);
  }
  ::close(ends[0]);
  ::close(ends[1]);
}

}  // namespace
}  // namespace infergate
