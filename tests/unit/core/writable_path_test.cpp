#include "core/writable_path.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

namespace infergate {
namespace {

namespace fs = std::filesystem;

class WritablePath : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("writable-path-" + std::to_string(::getpid()));
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

  fs::path dir_;
};

TEST_F(WritablePath, ANewFileInAFolderPassesAndIsNotMade) {
  const std::string path = (dir_ / "out.json").string();
  EXPECT_EQ(refusal(path), "");
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(refusal(""), "");  // the option not given
}

TEST_F(WritablePath, AnExistingFileIsLeftAsItWas) {
  const std::string path = (dir_ / "old.json").string();
  std::ofstream(path) << "kept";
  EXPECT_EQ(refusal(path), "");
  std::ifstream in(path);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "kept");
}

TEST_F(WritablePath, AMissingFolderOrAFolderIsRefusedWithTheReason) {
  const std::string missing = (dir_ / "no" / "out.json").string();
  EXPECT_EQ(refusal(missing),
            "--json '" + missing + "' cannot be written: its folder '" + (dir_ / "no").string() + "' does not exist");
  EXPECT_EQ(refusal(dir_.string()), "--json '" + dir_.string() + "' cannot be written: it is a folder");
}

}  // namespace
}  // namespace infergate
