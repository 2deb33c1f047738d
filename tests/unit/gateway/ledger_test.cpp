#include "gateway/ledger.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <csignal>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "gateway/ledger_journal.hpp"
#include "support/cached_pages.hpp"

namespace infergate::gateway {
namespace {

class LedgerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() / ("infergate-ledger-" + std::to_string(::getpid()) + "-" +
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir);
    path = (dir / "keys.db").string();
    journal = (dir / "ledger.jsonl").string();
  }
  void TearDown() override {
    set_append_only(journal, false);
    std::filesystem::remove_all(dir);
  }

  // Marks the file append-only (what `chattr +a` does), so the kernel refuses to cut it back, as
  // a failing disk may; false where this machine cannot (it needs root and a file system with
  // the attribute).
  static bool set_append_only(const std::string& file, bool on) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return false;
    }
    int flags = 0;
    bool done = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
    if (done) {
      flags = on ? (flags | FS_APPEND_FL) : (flags & ~FS_APPEND_FL);
      done = ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
    }
    ::close(fd);
    return done;
  }

  static LedgerRow row(std::string_view key, std::string_view model, std::int64_t prompt, std::int64_t completion,
                       double cost, std::int64_t ts_ms = now_ms()) {
    LedgerRow r;
    r.ts_ms = ts_ms;
    r.request_id = "req";
    r.key_id = key;
    r.model = model;
    r.prompt_tokens = prompt;
    r.completion_tokens = completion;
    r.token_source = "usage";
    r.cost_usd = cost;
    r.status = 200;
    return r;
  }
  static std::int64_t now_ms() { return static_cast<std::int64_t>(std::time(nullptr)) * 1000; }

  // The journal's lines, each parsed; a line that is not a row fails the test. The rows' texts
  // live as long as the fixture.
  std::vector<LedgerRow> journal_rows() {
    std::ifstream in(journal);
    std::vector<LedgerRow> rows;
    for (std::string line; std::getline(in, line);) {
      auto parsed = parse_journal_line(line, parsed_lines.emplace_back());
      EXPECT_TRUE(parsed) << line;
      if (parsed) {
        rows.push_back(*parsed);
      }
    }
    return rows;
  }

  std::filesystem::path dir;
  std::string path;
  std::string journal;
  std::deque<boost::json::value> parsed_lines;
  std::deque<std::string> texts;  // what test rows view
};

TEST_F(LedgerTest, AggregatesByKeyModelAndDay) {
  Ledger ledger(path, journal, std::chrono::hours(1));
  ledger.append(row("a", "m1", 10, 5, 0.5));
  ledger.append(row("a", "m1", 20, 5, 0.25));
  ledger.append(row("a", "m2", 1, 1, 0));
  ledger.append(row("b", "m1", 7, 3, 1.0));
  EXPECT_TRUE(ledger.usage().empty());  // queued, not yet written
  ledger.flush();
  EXPECT_EQ(ledger.rows_written(), 4u);
  const auto all = ledger.usage();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].key_id, "a");
  EXPECT_EQ(all[0].model, "m1");
  EXPECT_EQ(all[0].requests, 2);
  EXPECT_EQ(all[0].prompt_tokens, 30);
  EXPECT_EQ(all[0].completion_tokens, 10);
  EXPECT_DOUBLE_EQ(all[0].cost_usd, 0.75);
  EXPECT_EQ(all[0].day.size(), 10u);  // YYYY-MM-DD
  EXPECT_EQ(ledger.usage({.key_id = "b"}).size(), 1u);
}

TEST_F(LedgerTest, AReportCoversTheKeyModelAndDaysItIsAskedFor) {
  Ledger ledger(path, journal, std::chrono::hours(1));
  constexpr std::int64_t kDay = 86'400'000;
  const std::int64_t jan1 = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
  for (int day = 0; day < 3; ++day) {
    ledger.append(row("a", "m1", 1, 1, 0, jan1 + day * kDay));
    ledger.append(row("a", "m2", 1, 1, 0, jan1 + day * kDay));
    ledger.append(row("b", "m1", 1, 1, 0, jan1 + day * kDay));
  }
  ledger.flush();
  EXPECT_EQ(ledger.usage().size(), 9u);
  EXPECT_EQ(ledger.usage({.model = "m1"}).size(), 6u);
  const auto days = ledger.usage({.key_id = "a", .model = "m2", .since = "2026-01-02", .until = "2026-01-03"});
  ASSERT_EQ(days.size(), 2u);
  EXPECT_EQ(days[0].day, "2026-01-02");
  EXPECT_EQ(days[1].day, "2026-01-03");
  EXPECT_EQ(ledger.usage({.since = "2026-01-03"}).size(), 3u);
  EXPECT_EQ(ledger.usage({.until = "2026-01-01"}).size(), 3u);
}

// A batch adds a row to the group of the row before without looking it up when the day, key and
// model are the same: rows that change one of the three at a time, and come back, each count in
// their own group.
TEST_F(LedgerTest, RowsInterleavedAcrossKeysModelsAndDaysCountInTheirOwnGroup) {
  Ledger ledger(path, journal, std::chrono::hours(1));
  const auto utc_day = [](std::int64_t ts_ms) {
    const std::time_t seconds = ts_ms / 1000;
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char text[16];
    return std::string(text, std::strftime(text, sizeof(text), "%Y-%m-%d", &tm));
  };
  std::map<std::tuple<std::string, std::string, std::string>, std::int64_t> expected;
  for (int i = 0; i < 60; ++i) {
    const std::string key = i % 3 == 0 ? "a" : "b";
    const std::string model = i % 4 < 2 ? "m1" : "m2";
    const std::int64_t ts = now_ms() - (i % 5 == 0 ? 86'400'000 : 0);
    ledger.append(row(key, model, i, 1, 0, ts));
    expected[{key, model, utc_day(ts)}] += i;
  }
  ledger.flush();
  std::map<std::tuple<std::string, std::string, std::string>, std::int64_t> got;
  for (const UsageGroup& g : ledger.usage()) {
    got[{g.key_id, g.model, g.day}] = g.prompt_tokens;
  }
  EXPECT_EQ(got, expected);
}

TEST_F(LedgerTest, LargeBatchesAreWrittenWholeEveryRowWithItsOwnValues) {
  Ledger ledger(path, journal, std::chrono::hours(1));
  std::int64_t prompt_sum = 0;
  for (int i = 0; i < 75; ++i) {
    LedgerRow r = row(i % 2 == 0 ? "even" : "odd", "m", i, std::int64_t{2} * i, 0.001 * i);
    r.request_id = texts.emplace_back("req-" + std::to_string(i));
    if (i % 3 == 0) {
      r.ttft_ms = 12.5;
    }
    prompt_sum += i;
    ledger.append(r);
  }
  ledger.flush();
  EXPECT_EQ(ledger.rows_written(), 75u);
  std::int64_t requests = 0;
  std::int64_t prompt = 0;
  std::int64_t completion = 0;
  for (const auto& group : ledger.usage()) {
    requests += group.requests;
    prompt += group.prompt_tokens;
    completion += group.completion_tokens;
  }
  EXPECT_EQ(requests, 75);
  EXPECT_EQ(prompt, prompt_sum);
  EXPECT_EQ(completion, 2 * prompt_sum);
  ASSERT_EQ(ledger.usage({.key_id = "odd"}).size(), 1u);
  EXPECT_EQ(ledger.usage({.key_id = "odd"})[0].requests, 37);
  const auto rows = journal_rows();
  ASSERT_EQ(rows.size(), 75u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].request_id, "req-" + std::to_string(i));
    EXPECT_EQ(rows[i].prompt_tokens, static_cast<std::int64_t>(i));
    EXPECT_EQ(rows[i].ttft_ms.has_value(), i % 3 == 0);
  }
}

TEST_F(LedgerTest, TheJournalHoldsEveryRowAsOneJsonLineWithEveryField) {
  Ledger ledger(path, journal, std::chrono::hours(1));
  std::vector<LedgerRow> appended;
  for (const char* id : {"plain", "quote\" and \\ backslash",
                         "new\nline\ttab\x01"
                         "control",
                         "caf\xc3\xa9 \xe2\x82\xac"}) {
    LedgerRow r = row("key-1", "gemma", 123, 45, 0.1 + 0.2);  // a cost with no short decimal form
    r.request_id = id;
    r.upstream_model = "gemma-4-31b";
    r.provider = "groq";
    r.token_source = "estimate";
    r.status = 499;
    r.ttft_ms = 12.345;
    r.duration_ms = 678.901;
    appended.push_back(r);
  }
  appended.back().ttft_ms.reset();
  for (const LedgerRow& r : appended) {
    ledger.append(r);
  }
  ledger.flush();
  EXPECT_EQ(journal_rows(), appended);
}

TEST_F(LedgerTest, RowsAWriterAppendedButDidNotLiveToCountAreCountedByTheNextWrite) {
  {
    Ledger ledger(path, journal, std::chrono::hours(1));
    ledger.append(row("k", "m", 1, 1, 1.0));
  }
  // A gateway killed after its append and before its commit: two whole lines, and half a third.
  {
    std::string lines;
    lines += journal_line(row("k", "m", 10, 10, 10.0));
    lines += journal_line(row("k", "m", 100, 100, 100.0));
    std::string half;
    half += journal_line(row("k", "m", 1000, 1000, 1000.0));
    std::ofstream(journal, std::ios::app) << lines << half.substr(0, half.size() / 2);
  }
  Ledger next(path, journal, std::chrono::hours(1));
  next.append(row("k", "m", 5, 5, 5000.0));
  next.flush();
  ASSERT_EQ(next.usage({.key_id = "k"}).size(), 1u);
  EXPECT_EQ(next.usage({.key_id = "k"})[0].requests, 4);
  EXPECT_EQ(next.usage({.key_id = "k"})[0].prompt_tokens, 116);
  next.refresh_spend();
  EXPECT_DOUBLE_EQ(next.slot("k").in(BudgetPeriod::total), 5111.0);
  const auto rows = journal_rows();  // the half line is gone: every line parses
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows.back().prompt_tokens, 5);
}

TEST_F(LedgerTest, AJournalRotatedAwayStartsAfreshAndTheSumsGoOn) {
  Ledger ledger(path, journal, std::chrono::hours(1));
  ledger.append(row("k", "m", 1, 1, 1.0));
  ledger.append(row("k", "m", 1, 1, 1.0));
  ledger.flush();
  std::filesystem::rename(journal, journal + ".1");
  ledger.append(row("k", "m", 1, 1, 1.0));
  ledger.flush();
  EXPECT_EQ(journal_rows().size(), 1u);
  ASSERT_EQ(ledger.usage({.key_id = "k"}).size(), 1u);
  EXPECT_EQ(ledger.usage({.key_id = "k"})[0].requests, 3);
  ledger.append(row("k", "m", 1, 1, 1.0));
  ledger.flush();
  EXPECT_EQ(journal_rows().size(), 2u);
  EXPECT_EQ(ledger.usage({.key_id = "k"})[0].requests, 4);
}

// A full batch wakes the ledger's thread at once, but after a write that failed it waits for the
// interval: a disk that refuses is not retried at every batch.
TEST_F(LedgerTest, AFailedWriteOfFullBatchesIsNotRetriedBeforeTheInterval) {
  const std::string elsewhere = (dir / "not-yet" / "ledger.jsonl").string();
  Ledger ledger(path, elsewhere, std::chrono::hours(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // its thread waits for the hour
  for (std::size_t i = 0; i < 3 * Ledger::kBatchRows; ++i) {
    ledger.append(row("k", "m", 1, 1, 1.0));
  }
  for (int waited = 0; waited < 1000 && ledger.stats().write_failures == 0; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(ledger.stats().write_failures, 1u);
  EXPECT_EQ(ledger.stats().rows_queued, 3 * Ledger::kBatchRows);
  std::filesystem::create_directories(dir / "not-yet");
  ledger.flush();
  EXPECT_EQ(ledger.rows_written(), 3 * Ledger::kBatchRows);
  EXPECT_EQ(ledger.stats().rows_queued, 0u);
}

TEST_F(LedgerTest, AFailedWriteKeepsItsRowsQueuedAndWritesThemOnceLater) {
  const std::string elsewhere = (dir / "not-yet" / "ledger.jsonl").string();
  Ledger ledger(path, elsewhere, std::chrono::hours(1));
  ledger.append(row("k", "m", 1, 1, 2.0));
  EXPECT_THROW(ledger.flush(), std::runtime_error);  // the journal's folder is missing
  EXPECT_EQ(ledger.rows_written(), 0u);
  LedgerStats stats = ledger.stats();
  EXPECT_EQ(stats.rows_queued, 1u);
  EXPECT_EQ(stats.write_failures, 1u);
  EXPECT_TRUE(ledger.usage({.key_id = "k"}).empty());
  EXPECT_DOUBLE_EQ(ledger.slot("k").in(BudgetPeriod::day), 2.0);
  std::filesystem::create_directories(dir / "not-yet");
  ledger.flush();
  EXPECT_EQ(ledger.rows_written(), 1u);
  stats = ledger.stats();
  EXPECT_EQ(stats.rows_written, 1u);
  EXPECT_EQ(stats.rows_queued, 0u);
  EXPECT_EQ(stats.write_failures, 1u);
  ASSERT_EQ(ledger.usage({.key_id = "k"}).size(), 1u);
  EXPECT_EQ(ledger.usage({.key_id = "k"})[0].requests, 1);
  ledger.refresh_spend();
  EXPECT_DOUBLE_EQ(ledger.slot("k").in(BudgetPeriod::day), 2.0);
}

TEST_F(LedgerTest, RowsAFailedWriteCouldNotCutBackOffTheJournalAreCountedOnceAndNotQueuedAgain) {
  Ledger ledger(path, journal, std::chrono::hours(1));
  ledger.append(row("k", "m", 1, 1, 1.0));
  ledger.flush();
  if (!set_append_only(journal, true)) {
    GTEST_SKIP() << "this machine cannot mark a file append-only (needs root and ext4 or the like)";
  }
  // The transaction fails after the append, and the cut back fails too.
  SqliteDb db(path, "the test's view of the ledger");
  db.exec(
      "CREATE TRIGGER refuse BEFORE UPDATE ON ledger_journal BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
  ledger.append(row("k", "m", 10, 10, 10.0));
  ledger.append(row("k", "m", 100, 100, 100.0));
  EXPECT_THROW(ledger.flush(), std::runtime_error);
  EXPECT_EQ(journal_rows().size(), 3u);
  ASSERT_EQ(ledger.usage({.key_id = "k"}).size(), 1u);
  EXPECT_EQ(ledger.usage({.key_id = "k"})[0].requests, 1);
  EXPECT_EQ(ledger.stats().rows_queued, 0u);
  EXPECT_EQ(ledger.stats().write_failures, 1u);
  EXPECT_DOUBLE_EQ(ledger.slot("k").in(BudgetPeriod::total), 111.0);

  db.exec("DROP TRIGGER refuse");
  ledger.flush();  // nothing new to write: the next interval counts what the journal holds
  ASSERT_EQ(ledger.usage({.key_id = "k"}).size(), 1u);
  EXPECT_EQ(ledger.usage({.key_id = "k"})[0].requests, 3);
  EXPECT_EQ(journal_rows().size(), 3u);
  ledger.append(row("k", "m", 1000, 1000, 1000.0));
  ledger.flush();
  EXPECT_EQ(journal_rows().size(), 4u);
  ASSERT_EQ(ledger.usage({.key_id = "k"}).size(), 1u);
  EXPECT_EQ(ledger.usage({.key_id = "k"})[0].requests, 4);
  EXPECT_EQ(ledger.usage({.key_id = "k"})[0].prompt_tokens, 1111);
  EXPECT_DOUBLE_EQ(ledger.slot("k").in(BudgetPeriod::total), 1111.0);
  ledger.refresh_spend();
  EXPECT_DOUBLE_EQ(ledger.slot("k").in(BudgetPeriod::total), 1111.0);
}

TEST_F(LedgerTest, AnAppendCutShortThatCannotBeCutBackQueuesAgainOnlyTheRowsNotInTheJournal) {
  Ledger ledger(path, journal, std::chrono::hours(1));
  ledger.append(row("k", "m", 1, 1, 1.0));
  ledger.flush();
  if (!set_append_only(journal, true)) {
    GTEST_SKIP() << "this machine cannot mark a file append-only (needs root and ext4 or the like)";
  }
  std::string first;
  first += journal_line(row("k", "m", 10, 10, 10.0));
  ledger.append(row("k", "m", 10, 10, 10.0));
  ledger.append(row("k", "m", 100, 100, 100.0));
  {
    // The disk fills up ten bytes into the second row's line.
    rlimit saved{};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
    rlimit full = saved;
    full.rlim_cur = std::filesystem::file_size(journal) + first.size() + 10;
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &full), 0);
    EXPECT_THROW(ledger.flush(), std::runtime_error);
    ::setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, old_handler);
  }
  EXPECT_EQ(ledger.stats().rows_queued, 1u);
  EXPECT_DOUBLE_EQ(ledger.slot("k").in(BudgetPeriod::total), 111.0);

  ASSERT_TRUE(set_append_only(journal, false));  // the next write cuts the half line off
  ledger.flush();
  const auto rows = journal_rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].prompt_tokens, 10);
  EXPECT_EQ(rows[2].prompt_tokens, 100);
  ASSERT_EQ(ledger.usage({.key_id = "k"}).size(), 1u);
  EXPECT_EQ(ledger.usage({.key_id = "k"})[0].requests, 3);
  EXPECT_EQ(ledger.usage({.key_id = "k"})[0].prompt_tokens, 111);
  EXPECT_EQ(ledger.stats().rows_queued, 0u);
  ledger.refresh_spend();
  EXPECT_DOUBLE_EQ(ledger.slot("k").in(BudgetPeriod::total), 111.0);
}

TEST_F(LedgerTest, AFlushOfSeveralTransactionsWritesAndCountsEveryRowOnce) {
  Ledger ledger(path, journal, std::chrono::hours(1));
  Ledger other(path, journal, std::chrono::hours(1));
  for (int i = 0; i < 2500; ++i) {  // more than two transactions' worth
    ledger.append(row("k", "m", 1, 1, 1.0));
  }
  ledger.flush();
  other.append(row("k", "m", 1, 1, 0.5));
  other.flush();
  EXPECT_EQ(ledger.rows_written(), 2500u);
  EXPECT_DOUBLE_EQ(ledger.slot("k").in(BudgetPeriod::day), 2500.0);
  ledger.refresh_spend();
  EXPECT_DOUBLE_EQ(ledger.slot("k").in(BudgetPeriod::day), 2500.5);
  ASSERT_EQ(ledger.usage({.key_id = "k"}).size(), 1u);
  EXPECT_EQ(ledger.usage({.key_id = "k"})[0].requests, 2501);
  EXPECT_EQ(journal_rows().size(), 2501u);
}

TEST_F(LedgerTest, AFullBatchIsWrittenAtOnceAndThePartOneWaitsForTheInterval) {
  Ledger ledger(path, journal, std::chrono::hours(1));
  const std::size_t rows = 2 * Ledger::kBatchRows + 100;
  // The ledger's thread has started and waits for the hour to pass by the time the batches fill.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (std::size_t i = 0; i < rows; ++i) {
    ledger.append(row("k", "m", 1, 1, 1.0));
  }
  for (int waited = 0; waited < 1000 && ledger.rows_written() < 2 * Ledger::kBatchRows; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(ledger.rows_written(), 2 * Ledger::kBatchRows);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(ledger.rows_written(), 2 * Ledger::kBatchRows);  // the last 100 wait for the hour
  ledger.flush();
  EXPECT_EQ(ledger.rows_written(), rows);
  EXPECT_EQ(journal_rows().size(), rows);
}

// The journal is written and not read back: once written, its lines leave the page cache
// (core/drop_behind.hpp).
TEST_F(LedgerTest, TheJournalLeavesWhatItWroteOutOfThePageCache) {
  if (!test_support::drops_cached_pages(dir.string())) {
    GTEST_SKIP() << "this file system keeps pages cached whatever it is told";
  }
  Ledger ledger(path, journal, std::chrono::hours(1));
  for (int i = 0; i < 40'000; ++i) {  // about 8 MiB of journal, in 45 transactions
    ledger.append(row("k", "m", 1, 1, 1.0));
  }
  ledger.flush();
  const std::vector<bool> pages = test_support::cached_pages(journal);
  ASSERT_GT(pages.size(), 4 * (DropBehind::kStep / 4096));
  for (std::size_t i = 0; i < pages.size() / 2; ++i) {
    ASSERT_FALSE(pages[i]) << "page " << i << " of " << pages.size() << " is cached";
  }
  EXPECT_EQ(journal_rows().size(), 40'000u);
}

TEST_F(LedgerTest, SpendCountsEachRowOnceWhetherQueuedWrittenOrRefreshed) {
  Ledger ledger(path, journal, std::chrono::hours(1));
  ledger.append(row("a", "m", 1, 1, 2.0));
  EXPECT_DOUBLE_EQ(ledger.slot("a").in(BudgetPeriod::day), 2.0);
  ledger.flush();  // on disk, not yet in the snapshot
  EXPECT_DOUBLE_EQ(ledger.slot("a").in(BudgetPeriod::day), 2.0);
  ledger.refresh_spend();
  EXPECT_DOUBLE_EQ(ledger.slot("a").in(BudgetPeriod::day), 2.0);
  EXPECT_DOUBLE_EQ(ledger.slot("a").in(BudgetPeriod::total), 2.0);
  EXPECT_DOUBLE_EQ(ledger.slot("nobody").in(BudgetPeriod::total), 0.0);
}

// The slot a caller keeps for a key (the proxy's, in the key's state) stays where it is, and counts
// a row whether the caller hands it to append or the ledger finds it by the row's key.
TEST_F(LedgerTest, AKeysSlotStaysPutAndCountsRowsHandedWithOrWithoutIt) {
  Ledger ledger(path, journal, std::chrono::hours(1));
  KeySpend& a = ledger.slot("a");
  ledger.append(row("a", "m", 1, 1, 2.0), &a);
  ledger.append(row("a", "m", 1, 1, 3.0));
  ledger.append(row("b", "m", 1, 1, 7.0));
  EXPECT_EQ(&ledger.slot("a"), &a);
  EXPECT_DOUBLE_EQ(a.in(BudgetPeriod::day), 5.0);
  EXPECT_DOUBLE_EQ(ledger.slot("b").in(BudgetPeriod::month), 7.0);
  ledger.flush();
  EXPECT_DOUBLE_EQ(a.in(BudgetPeriod::total), 5.0);
  ledger.refresh_spend();
  EXPECT_DOUBLE_EQ(a.in(BudgetPeriod::total), 5.0);
  ledger.append(row("a", "m", 1, 1, 1.0), &a);
  EXPECT_DOUBLE_EQ(a.in(BudgetPeriod::day), 6.0);
  EXPECT_DOUBLE_EQ(ledger.slot("a").in(BudgetPeriod::day), 6.0);
  EXPECT_EQ(&ledger.slot("a"), &a);
}

TEST_F(LedgerTest, ReplicasSharingTheFileCountEveryRowOnce) {
  Ledger a(path, journal, std::chrono::hours(1));
  Ledger b(path, journal, std::chrono::hours(1));
  // Interleaved batches: each replica's rows sit between the other's.
  a.append(row("k", "m", 1, 1, 1.0));
  a.flush();
  b.append(row("k", "m", 1, 1, 10.0));
  b.append(row("k", "m", 1, 1, 0));  // free rows count too
  b.flush();
  a.append(row("k", "m", 1, 1, 100.0));
  a.append(row("k", "m", 1, 1, 5000.0, 1000));  // 1970: counts in total only
  a.flush();
  b.append(row("k", "m", 1, 1, 1000.0));
  b.flush();
  EXPECT_DOUBLE_EQ(a.slot("k").in(BudgetPeriod::total), 5101.0);  // its own, before any refresh
  a.refresh_spend();
  b.refresh_spend();
  for (Ledger* ledger : {&a, &b}) {
    EXPECT_DOUBLE_EQ(ledger->slot("k").in(BudgetPeriod::total), 6111.0);
    EXPECT_DOUBLE_EQ(ledger->slot("k").in(BudgetPeriod::month), 1111.0);
    EXPECT_DOUBLE_EQ(ledger->slot("k").in(BudgetPeriod::day), 1111.0);
  }
  // Written, queued and refreshed again: still once each.
  a.append(row("k", "m", 1, 1, 10000.0));
  a.flush();
  a.append(row("k", "m", 1, 1, 100000.0));
  b.refresh_spend();
  EXPECT_DOUBLE_EQ(a.slot("k").in(BudgetPeriod::day), 111111.0);
  EXPECT_DOUBLE_EQ(b.slot("k").in(BudgetPeriod::day), 11111.0);
  a.refresh_spend();
  a.refresh_spend();
  EXPECT_DOUBLE_EQ(a.slot("k").in(BudgetPeriod::day), 111111.0);
  a.flush();
  a.refresh_spend();
  b.refresh_spend();
  EXPECT_DOUBLE_EQ(a.slot("k").in(BudgetPeriod::day), 111111.0);
  EXPECT_DOUBLE_EQ(b.slot("k").in(BudgetPeriod::day), 111111.0);
}

TEST_F(LedgerTest, ARefreshTakesEachKeysSpendingFromTheSumsOnDisk) {
  Ledger own(path, journal, std::chrono::hours(1));
  Ledger other(path, journal, std::chrono::hours(1));
  own.append(row("k", "m", 1, 1, 1.0));
  own.flush();
  other.append(row("k", "m", 1, 1, 10.0));
  other.flush();
  // The sums doubled behind the ledgers' backs (an administrator's correction): what is on disk
  // counts, this process's own rows included, once.
  SqliteDb db(path, "the test's view of the ledger");
  db.exec("UPDATE ledger_daily SET cost_usd = cost_usd * 2");
  db.exec("UPDATE ledger_key_total SET cost_usd = cost_usd * 2");
  own.refresh_spend();
  EXPECT_DOUBLE_EQ(own.slot("k").in(BudgetPeriod::total), 22.0);
  EXPECT_DOUBLE_EQ(own.slot("k").in(BudgetPeriod::day), 22.0);
}

TEST_F(LedgerTest, OldRowsCountOnlyInTheirPeriod) {
  Ledger ledger(path, journal, std::chrono::hours(1));
  ledger.append(row("a", "m", 1, 1, 5.0, 1000));  // 1970
  ledger.append(row("a", "m", 1, 1, 1.0));
  ledger.flush();
  ledger.refresh_spend();
  EXPECT_DOUBLE_EQ(ledger.slot("a").in(BudgetPeriod::day), 1.0);
  EXPECT_DOUBLE_EQ(ledger.slot("a").in(BudgetPeriod::month), 1.0);
  EXPECT_DOUBLE_EQ(ledger.slot("a").in(BudgetPeriod::total), 6.0);
}

TEST_F(LedgerTest, DestructionWritesWhatIsQueuedAndTheBackgroundThreadWritesOnItsOwn) {
  {
    Ledger ledger(path, journal, std::chrono::hours(1));
    ledger.append(row("a", "m", 1, 1, 0));
  }
  Ledger reopened(path, journal, std::chrono::milliseconds(20));
  EXPECT_EQ(reopened.usage({.key_id = ""}).size(), 1u);
  reopened.append(row("a", "m", 1, 1, 0));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (reopened.rows_written() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(reopened.rows_written(), 1u);
}

TEST_F(LedgerTest, TheRowsOfALedgerFromBeforeTheJournalAreCarriedOverOnce) {
  {
    SqliteDb db(path, "a key database from before the journal");
    db.exec(
        "CREATE TABLE ledger (ts_ms INTEGER NOT NULL, request_id TEXT NOT NULL, key_id TEXT NOT NULL,"
        " model TEXT NOT NULL, upstream_model TEXT NOT NULL, provider TEXT NOT NULL, prompt_tokens INTEGER NOT NULL,"
        " completion_tokens INTEGER NOT NULL, token_source TEXT NOT NULL, cost_usd REAL NOT NULL,"
        " status INTEGER NOT NULL, ttft_ms REAL, duration_ms REAL NOT NULL)");
    db.exec("CREATE INDEX ledger_time ON ledger (ts_ms)");
    const std::string now = std::to_string(now_ms());
    db.exec(("INSERT INTO ledger VALUES (" + now + ", 'r1', 'a', 'm', 'u', 'p', 10, 5, 'usage', 1.5, 200, 1.0, 2.0),(" +
             now +
             ", 'r2', 'a', 'm', 'u', 'p', 20, 5, 'usage', 2.5, 200, NULL, 2.0),"
             "(1000, 'r3', 'b', 'm', 'u', 'p', 1, 1, 'estimate', 7.0, 499, NULL, 2.0)")
                .c_str());
  }
  for (int open = 0; open < 2; ++open) {  // a second start carries nothing over again
    Ledger ledger(path, journal, std::chrono::hours(1));
    const auto a = ledger.usage({.key_id = "a"});
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].requests, 2);
    EXPECT_EQ(a[0].prompt_tokens, 30);
    EXPECT_DOUBLE_EQ(a[0].cost_usd, 4.0);
    ASSERT_EQ(ledger.usage({.key_id = "b"}).size(), 1u);
    EXPECT_EQ(ledger.usage({.key_id = "b"})[0].day, "1970-01-01");
    EXPECT_DOUBLE_EQ(ledger.slot("a").in(BudgetPeriod::day), 4.0);
    EXPECT_DOUBLE_EQ(ledger.slot("b").in(BudgetPeriod::total), 7.0);
    EXPECT_DOUBLE_EQ(ledger.slot("b").in(BudgetPeriod::month), 0.0);
  }
  SqliteDb db(path, "the test's view of the key database");
  Statement kept(db, "SELECT count(*) FROM ledger_rows_before_journal");
  ASSERT_TRUE(kept.step());
  EXPECT_EQ(kept.integer(0), 3);
}

TEST(RequestCost, PricesArePerMillionTokens) {
  EXPECT_DOUBLE_EQ(request_cost(1'000'000, 500'000, Price{0.59, 0.79}), 0.59 + 0.395);
  EXPECT_DOUBLE_EQ(request_cost(1000, 1000, std::nullopt), 0.0);
}

TEST(JournalLine, EachLineHoldsItsOwnRowsNamesWhicheverOfThemChangedFromTheLineBefore) {
  // A line reuses the previous line's key, model, upstream model and provider when all four are
  // the same: rows changing one of them at a time, back and forth, must each read back as they are.
  const std::vector<std::string> keys = {"key-a", "key-b", ""};
  const std::vector<std::string> models = {"m", "model-two", "m\"quoted\""};
  LedgerRow r;
  r.request_id = "req";
  r.upstream_model = "up";
  r.provider = "p";
  r.status = 200;
  r.duration_ms = 1;
  std::vector<LedgerRow> rows;
  for (int i = 0; i < 24; ++i) {
    r.key_id = keys[static_cast<std::size_t>(i) % keys.size()];
    r.model = models[static_cast<std::size_t>(i / 2) % models.size()];
    r.upstream_model = i % 4 < 2 ? "up" : "up-2";
    r.provider = i % 5 == 0 ? "p" : "provider";
    r.ts_ms = i;
    rows.push_back(r);
    rows.push_back(r);  // the same names again
  }
  for (const LedgerRow& row : rows) {
    boost::json::value storage;
    const std::string line(journal_line(row));
    const auto read = parse_journal_line(std::string_view(line).substr(0, line.size() - 1), storage);
    ASSERT_TRUE(read.has_value()) << line;
    EXPECT_EQ(*read, row) << line;
  }
}

TEST(JournalLine, TheLongestValuesOfEveryFieldFitTheSpaceSetAsideForThem) {
  // The line is written into space sized from its fields first, and a line longer than that space
  // stops the program (append_written): every number at its widest, every string escaped to six
  // bytes a byte.
  const std::string controls(300, '\x1f');
  LedgerRow r;
  r.ts_ms = std::numeric_limits<std::int64_t>::min();
  r.request_id = controls;
  r.key_id = controls;
  r.model = controls;
  r.upstream_model = controls;
  r.provider = controls;
  r.prompt_tokens = std::numeric_limits<std::int64_t>::min();
  r.completion_tokens = std::numeric_limits<std::int64_t>::min();
  r.token_source = controls;
  r.cost_usd = -std::numeric_limits<double>::min();  // -2.2250738585072014e-308: a longest shortest form
  r.status = std::numeric_limits<int>::min();
  r.ttft_ms = -std::numeric_limits<double>::max();
  r.duration_ms = -std::numeric_limits<double>::max();
  std::string line;
  line += journal_line(r);
  ASSERT_TRUE(line.ends_with("}\n"));
  const boost::json::object o = boost::json::parse(line).as_object();
  EXPECT_EQ(o.at("provider").as_string(), controls);
  EXPECT_DOUBLE_EQ(o.at("cost_usd").as_double(), r.cost_usd);
  EXPECT_LT(o.at("duration_ms").as_double(), -1e308);
}

}  // namespace
}  // namespace infergate::gateway
