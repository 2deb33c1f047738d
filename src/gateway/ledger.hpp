#pragma once
// The usage and cost ledger: one row per finished request of a known key (success, error,
// refusal or cancellation), kept in SQLite beside the keys. Rows are queued by the I/O threads
// without touching the disk and written in one transaction per `flush` interval by a background
// thread, so a SIGKILL loses at most the rows of the last interval; destruction (a graceful
// shutdown) writes everything queued.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gateway/config.hpp"
#include "gateway/key_record.hpp"
#include "gateway/sqlite_db.hpp"

namespace infergate::gateway {

struct LedgerRow {
  std::int64_t ts_ms = 0;  // Unix ms when the request ended
  std::string request_id;
  std::string key_id;
  std::string model;  // the public model asked for
  std::string upstream_model;
  std::string provider;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::string token_source = "none";  // "usage" (the upstream's), "estimate" or "none"
  double cost_usd = 0;
  int status = 0;
  std::optional<double> ttft_ms;
  double duration_ms = 0;
};

struct UsageGroup {
  std::string key_id;
  std::string model;
  std::string day;  // UTC, YYYY-MM-DD
  std::int64_t requests = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  double cost_usd = 0;
};

class Ledger {
 public:
  // Opens `path` (creating the table); throws std::runtime_error when it cannot.
  Ledger(const std::string& path, std::chrono::milliseconds flush);
  ~Ledger();
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // Queues a row; never waits for the disk.
  void append(LedgerRow row);
  // Writes every queued row now.
  void flush();

  // Aggregates by key, model and UTC day; `key_id` empty: every key.
  std::vector<UsageGroup> usage(const std::string& key_id);

  // What `key_id` spent in the budget period that contains now: the rows on disk as of the last
  // refresh_spend(), plus the rows it has not read yet (queued, or written since): exact for the
  // rows of this process.
  [[nodiscard]] double spend(const std::string& key_id, BudgetPeriod period) const;
  // Brings each key's spending per period up to date with the rows on disk (the key cache's thread
  // calls it): only rows added since the last call are read, unless a day or month has begun, and
  // of those only the ones other processes wrote: this one's are counted from what it wrote.
  void refresh_spend();

  [[nodiscard]] std::uint64_t rows_written() const { return rows_written_.load(std::memory_order_relaxed); }

 private:
  struct Spend {
    std::unordered_map<std::string, double> day;
    std::unordered_map<std::string, double> month;
    std::unordered_map<std::string, double> total;
    std::int64_t last_rowid = -1;  // the newest row counted; -1 before the first read
    std::int64_t day_start_ms = 0;
    std::int64_t month_start_ms = 0;
  };
  // Costs written to disk that the spend snapshot does not hold yet: they stay counted from the
  // queue until a refresh has counted rows up to `last_rowid`. One transaction's rows take
  // consecutive rowids, so [first_rowid, last_rowid] holds this batch and nothing else.
  struct WrittenBatch {
    std::int64_t first_rowid = 0;
    std::int64_t last_rowid = 0;
    // Per key and UTC day (Unix ms at its start): every period begins on a day boundary, so the
    // day tells which periods a cost counts in.
    std::map<std::pair<std::string, std::int64_t>, double> cost;
  };
  void loop();
  // Takes a counted batch's costs out of queued_cost_ (queue_mutex_ held).
  void forget(const WrittenBatch& batch);
  // Writes `rows` in one transaction; returns the rowid of the last.
  std::int64_t write(std::span<const LedgerRow> rows);
  // Keeps the costs of `rows`, just written, counted until a refresh has them.
  void counted_on_disk(std::span<const LedgerRow> rows, std::int64_t last_rowid);

  SqliteDb writer_;
  std::unique_ptr<Statement> insert_many_;  // kRowsPerInsert rows; used under write_mutex_
  SqliteDb reader_;
  std::mutex reader_mutex_;
  std::chrono::milliseconds flush_interval_;

  mutable std::mutex queue_mutex_;
  std::vector<LedgerRow> queue_;
  std::unordered_map<std::string, double> queued_cost_;       // per key, rows the spend snapshot lacks
  std::vector<std::shared_ptr<const WrittenBatch>> written_;  // of those, the ones on disk, oldest first
  std::mutex write_mutex_;                                    // one flush at a time
  std::vector<LedgerRow> writing_;                            // the rows of the flush in progress
  std::condition_variable wake_;
  bool stopping_ = false;
  std::atomic<std::shared_ptr<const Spend>> spend_;
  std::atomic<std::uint64_t> rows_written_{0};
  std::thread thread_;
};

// The cost of a request at `price` (USD per million tokens); 0 without a price.
double request_cost(std::int64_t prompt_tokens, std::int64_t completion_tokens, const std::optional<Price>& price);

}  // namespace infergate::gateway
