#include "gateway/access_log.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <boost/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>
#include <vector>

#include "support/cached_pages.hpp"

namespace infergate::gateway {
namespace {

namespace json = boost::json;

AccessRecord sample() {
  AccessRecord r;
  r.ts_ms = 1'796'078'258'977;
  r.request_id = "req-1";
  r.method = "POST";
  r.path = "/v1/chat/completions";
  r.model = "llama";
  r.upstream_model = "llama-3.1-8b";
  r.provider = "groq";
  r.status = 200;
  r.attempts = 2;
  r.fallbacks = 1;
  r.ttft_ms = 12.3456;
  r.prompt_tokens = 128;
  r.completion_tokens = 64;
  r.duration_ms = 250.0004;
  r.overhead_us = 31;
  return r;
}

TEST(AccessRecord, IsOneJsonObjectWithEveryField) {
  std::string line;
  line += access_line(sample());
  const json::object o = json::parse(line).as_object();
  EXPECT_EQ(o.at("ts_ms").as_int64(), 1'796'078'258'977);
  EXPECT_EQ(o.at("request_id").as_string(), "req-1");
  EXPECT_FALSE(o.contains("key_id"));
  EXPECT_EQ(o.at("path").as_string(), "/v1/chat/completions");
  EXPECT_EQ(o.at("upstream_model").as_string(), "llama-3.1-8b");
  EXPECT_EQ(o.at("status").as_int64(), 200);
  EXPECT_EQ(o.at("attempts").as_int64(), 2);
  EXPECT_EQ(o.at("fallbacks").as_int64(), 1);
  EXPECT_DOUBLE_EQ(o.at("ttft_ms").as_double(), 12.346);
  EXPECT_TRUE(o.at("tpot_ms").is_null());
  EXPECT_EQ(o.at("completion_tokens").as_int64(), 64);
  EXPECT_DOUBLE_EQ(o.at("duration_ms").as_double(), 250.0);
  EXPECT_EQ(o.at("overhead_us").as_int64(), 31);
  EXPECT_FALSE(o.contains("error"));
}

TEST(AccessRecord, EscapesWhatJsonRequiresAndAppendsToWhatIsThere) {
  AccessRecord r = sample();
  r.key_id = "key_1";
  const std::string error = std::string("upstream said \"no\"\n\tback\\slash ") + '\x01';
  r.error = error;
  std::string line = "previous\n";
  line += access_line(r);
  ASSERT_TRUE(line.starts_with("previous\n{"));
  const json::object o = json::parse(std::string_view(line).substr(9)).as_object();
  EXPECT_EQ(o.at("key_id").as_string(), "key_1");
  EXPECT_EQ(o.at("error").as_string(), error);
  EXPECT_NE(line.find("\\u0001"), std::string::npos);
}

TEST(AccessRecord, TheLongestValuesOfEveryFieldFitTheSpaceSetAsideForThem) {
  // The line is written into space sized from its fields first, and a line longer than that space
  // stops the program (append_written): every number at its widest, every string escaped to six
  // bytes a byte.
  const std::string controls(300, '\x01');
  AccessRecord r;
  r.ts_ms = std::numeric_limits<std::int64_t>::min();
  r.request_id = controls;
  r.key_id = controls;
  r.method = controls;
  r.path = controls;
  r.model = controls;
  r.upstream_model = controls;
  r.provider = controls;
  r.status = std::numeric_limits<int>::min();
  r.attempts = std::numeric_limits<int>::min();
  r.fallbacks = std::numeric_limits<int>::min();
  r.ttft_ms = -std::numeric_limits<double>::max();
  r.tpot_ms = -std::numeric_limits<double>::max();
  r.prompt_tokens = std::numeric_limits<std::int64_t>::min();
  r.completion_tokens = std::numeric_limits<std::int64_t>::min();
  r.duration_ms = -std::numeric_limits<double>::max();
  r.overhead_us = std::numeric_limits<std::int64_t>::min();
  r.error = controls;
  std::string line;
  line += access_line(r);
  const json::object o = json::parse(line).as_object();
  EXPECT_EQ(o.at("error").as_string(), controls);
  EXPECT_EQ(o.at("overhead_us").as_int64(), std::numeric_limits<std::int64_t>::min());
  EXPECT_LT(o.at("duration_ms").as_double(), -1e308);
}

TEST(AccessLog, WritesOneLinePerRecordByTheTimeItCloses) {
  const auto path = std::filesystem::temp_directory_path() / "infergate-access-log-test.jsonl";
  std::filesystem::remove(path);
  {
    AccessLog log(path.string(), std::chrono::milliseconds(5));
    for (int i = 0; i < 3; ++i) {
      AccessRecord r = sample();
      r.status = 200 + i;
      log.write(r);
    }
  }
  std::ifstream in(path);
  std::string text;
  int lines = 0;
  while (std::getline(in, text)) {
    EXPECT_EQ(json::parse(text).as_object().at("status").as_int64(), 200 + lines);
    ++lines;
  }
  EXPECT_EQ(lines, 3);
  std::filesystem::remove(path);
}

// A busy gateway's lines go out a batch of 256 KiB at a time, not a larger one at the interval:
// each write delays the requests on the core the writer shares.
TEST(AccessLog, WritesABatchOnceItPasses256KiBWithoutWaitingForTheInterval) {
  const auto path = std::filesystem::temp_directory_path() / "infergate-access-log-batch-test.jsonl";
  std::filesystem::remove(path);
  {
    AccessLog log(path.string(), std::chrono::hours(1));
    const std::size_t line = access_line(sample()).size();
    const std::size_t records = (std::size_t{300} << 10) / line;
    for (std::size_t i = 0; i < records; ++i) {
      log.write(sample());
    }
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::filesystem::file_size(path) < (std::size_t{256} << 10) && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_GE(std::filesystem::file_size(path), std::size_t{256} << 10);
  }
  std::filesystem::remove(path);
}

// A full disk: each batch is dropped and its lines counted, and the writer goes on trying.
TEST(AccessLog, CountsTheLinesAFileDoesNotTake) {
  AccessLog log("/dev/full", std::chrono::milliseconds(2));
  const auto lost = [&](std::uint64_t lines) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (log.lines_lost() < lines && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return log.lines_lost();
  };
  for (int i = 0; i < 3; ++i) {
    log.write(sample());
  }
  EXPECT_EQ(lost(3), 3u);
  log.write(sample());
  EXPECT_EQ(lost(4), 4u);
}

// A file that stops taking bytes inside a line (a file-size limit here, as a disk that fills up):
// the lines before the cut count as written, the cut line and the ones after it as lost, and once
// the file takes bytes again the next line starts a line of its own instead of continuing the cut.
TEST(AccessLog, ALineAWriteCutShortIsLostAndTheNextOneStartsALineOfItsOwn) {
  const auto path = std::filesystem::temp_directory_path() / "infergate-access-log-cut-test.jsonl";
  std::filesystem::remove(path);
  const std::size_t line = access_line(sample()).size();
  rlimit unlimited{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &unlimited), 0);
  rlimit limited = unlimited;
  limited.rlim_cur = 2 * line + line / 2;
  const auto previous_handler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  {
    AccessLog log(path.string(), std::chrono::milliseconds(2));
    for (int i = 0; i < 5; ++i) {
      AccessRecord r = sample();
      r.status = 200 + i;
      log.write(r);
    }
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (log.lines_lost() < 3 && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    EXPECT_EQ(log.lines_lost(), 3u);
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &unlimited), 0);
    AccessRecord r = sample();
    r.status = 299;
    log.write(r);
  }
  std::signal(SIGXFSZ, previous_handler);
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string text; std::getline(in, text);) {
    lines.push_back(text);
  }
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(json::parse(lines[0]).as_object().at("status").as_int64(), 200);
  EXPECT_EQ(json::parse(lines[1]).as_object().at("status").as_int64(), 201);
  EXPECT_EQ(lines[2].size(), line / 2);
  EXPECT_EQ(json::parse(lines[3]).as_object().at("status").as_int64(), 299);
  std::filesystem::remove(path);
}

// About 10 MiB of records, in about 40 writes.
void write_bursts(const std::string& path) {
  AccessLog log(path, std::chrono::milliseconds(2));
  for (int burst = 0; burst < 40; ++burst) {
    for (int i = 0; i < 1000; ++i) {
      log.write(sample());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void expect_first_half_not_cached(const std::string& path) {
  const std::vector<bool> pages = test_support::cached_pages(path);
  ASSERT_GT(pages.size(), 4 * (DropBehind::kStep / 4096));
  for (std::size_t i = 0; i < pages.size() / 2; ++i) {
    ASSERT_FALSE(pages[i]) << "page " << i << " of " << pages.size() << " is cached";
  }
}

// Skipped where the file system keeps pages whatever it is told (tmpfs).
class AccessLogOnDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test_support::drops_cached_pages(".")) {
      GTEST_SKIP() << "this file system keeps pages cached whatever it is told";
    }
  }
};

// A busy gateway writes tens of megabytes of log a second: once written, they leave the page
// cache (core/drop_behind.hpp).
TEST_F(AccessLogOnDisk, LeavesWhatItWroteOutOfThePageCache) {
  const std::string path = "access-log-pages-test.jsonl";  // in the build tree, on a disk
  std::filesystem::remove(path);
  write_bursts(path);
  expect_first_half_not_cached(path);
  std::filesystem::remove(path);
}

// As when a service manager appends standard error to a file.
TEST_F(AccessLogOnDisk, OnStandardErrorThatIsAFileLeavesItOutOfThePageCacheToo) {
  const std::string path = "access-log-stderr-pages-test.jsonl";
  const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
  ASSERT_GE(file, 0);
  const int saved = ::dup(STDERR_FILENO);
  ASSERT_GE(::dup2(file, STDERR_FILENO), 0);
  write_bursts("-");
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(file);
  expect_first_half_not_cached(path);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace infergate::gateway
