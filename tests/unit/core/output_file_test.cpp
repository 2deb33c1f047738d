#include "core/output_file.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace infergate {
namespace {

namespace fs = std::filesystem;

class OutputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("output-file-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The message check_writable throws, or "" when it passes.
  static std::string refusal(const std::string& path) {
    try {
      check_writable(path, "--json");
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }

  // The message write_output throws, or "" when it wrote.
  static std::string write_refusal(const std::string& path, std::string_view text) {
    try {
      write_output(path, text);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }

  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

TEST_F(OutputFiles, ANewFileInAFolderPassesAndIsNotMade) {
  const std::string path = (dir_ / "out.json").string();
  EXPECT_EQ(refusal(path), "");
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(refusal(""), "");  // the option not given
}

TEST_F(OutputFiles, AnExistingFileIsLeftAsItWas) {
  const std::string path = (dir_ / "old.json").string();
  std::ofstream(path) << "kept";
  EXPECT_EQ(refusal(path), "");
  std::ifstream in(path);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "kept");
}

TEST_F(OutputFiles, AMissingFolderOrAFolderIsRefusedWithTheReason) {
  const std::string missing = (dir_ / "no" / "out.json").string();
  EXPECT_EQ(refusal(missing),
            "--json '" + missing + "' cannot be written: its folder '" + (dir_ / "no").string() + "' does not exist");
  EXPECT_EQ(refusal(dir_.string()), "--json '" + dir_.string() + "' cannot be written: it is a folder");
}

TEST_F(OutputFiles, StandardOutputPasses) {
  EXPECT_EQ(refusal("-"), "");
  EXPECT_FALSE(fs::exists("-"));
}

TEST_F(OutputFiles, AFileIsWrittenWholeAndNothingIsLeftBesideIt) {
  const fs::path path = dir_ / "out.json";
  EXPECT_EQ(write_refusal(path.string(), "first"), "");
  EXPECT_EQ(read(path), "first");
  EXPECT_EQ(write_refusal(path.string(), "second, longer"), "");
  EXPECT_EQ(read(path), "second, longer");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(OutputFiles, AReplacedFileKeepsItsMode) {
  const fs::path path = dir_ / "shared.json";
  std::ofstream(path) << "old";
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                            fs::perms::group_write | fs::perms::others_read);
  EXPECT_EQ(write_refusal(path.string(), "new"), "");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::mask, fs::perms::owner_read | fs::perms::owner_write |
                                                                  fs::perms::group_read | fs::perms::group_write |
                                                                  fs::perms::others_read);
}

TEST_F(OutputFiles, ThroughALinkItsTargetIsWrittenAndTheLinkKept) {
  const fs::path target = dir_ / "run-7.json";
  const fs::path link = dir_ / "latest.json";
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  EXPECT_EQ(write_refusal(link.string(), "new"), "");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read(target), "new");
}

TEST_F(OutputFiles, ADeviceIsWrittenInPlace) {
  EXPECT_EQ(write_refusal("/dev/null", "nothing kept"), "");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

// /dev/full fails every write with ENOSPC, as a full disk does.
TEST_F(OutputFiles, AFailedWriteToADeviceSaysWhy) {
  const fs::path full = dir_ / "full";
  fs::create_symlink("/dev/full", full);
  EXPECT_EQ(write_refusal(full.string(), "x"), "writing '" + full.string() + "' failed: No space left on device");
}

// A file size limit fails a regular file's write part way, as a disk that fills does.
TEST_F(OutputFiles, AWriteCutShortLeavesTheOldFileWholeAndNothingBesideIt) {
  const fs::path path = dir_ / "result.json";
  std::ofstream(path) << "the last result";
  struct rlimit before {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
  struct rlimit small = before;
  small.rlim_cur = 64;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  const std::string refusal = write_refusal(path.string(), std::string(1000, 'x'));
  std::signal(SIGXFSZ, old_handler);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &before), 0);
  EXPECT_EQ(refusal, "writing '" + path.string() + "' failed: File too large; the file is as it was before");
  EXPECT_EQ(read(path), "the last result");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(OutputFiles, AFileWrittenInPiecesIsInPlaceOnlyOnceCommitted) {
  const fs::path path = dir_ / "records.jsonl";
  std::ofstream(path) << "the last run";
  const std::string line(1000, 'r');
  {
    OutputFile file(path.string());
    for (int i = 0; i < 200; ++i) {  // past the buffer: some of it is on disk
      file.append(line);
    }
    EXPECT_EQ(read(path), "the last run");
  }  // destroyed without a commit, as when the run's end throws
  EXPECT_EQ(read(path), "the last run");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
  {
    OutputFile file(path.string());
    for (int i = 0; i < 200; ++i) {
      file.append(line);
    }
    file.commit();
  }
  EXPECT_EQ(read(path).size(), 200u * line.size());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(OutputFiles, AMissingFolderIsAFailureThatMakesNothing) {
  const std::string path = (dir_ / "no" / "out.json").string();
  EXPECT_EQ(write_refusal(path, "x"), "writing '" + path + "' failed: No such file or directory; no file was made");
  EXPECT_FALSE(fs::exists(dir_ / "no"));
}

TEST_F(OutputFiles, TwoOutputsToStandardOutputAreRefused) {
  const std::string none;
  const std::string dash = "-";
  try {
    prepare_outputs({{"--json", dash}, {"--csv", none}, {"--records", dash}});
    FAIL() << "two outputs to standard output were taken";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "--json - and --records - both ask for standard output; write one of them to a file");
  }
}

}  // namespace
}  // namespace infergate
