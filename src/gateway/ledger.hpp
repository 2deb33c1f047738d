#pragma once
// The usage and cost ledger: one row per finished request of a known key (success, error,
// refusal or cancellation). Rows are queued by the I/O threads without touching the disk; every
// `flush` interval a background thread appends them to the usage journal (one JSON line each,
// ledger_journal.hpp) and adds them to per-day sums in SQLite beside the keys, in one transaction,
// so a SIGKILL loses at most the rows of the last interval; destruction (a graceful shutdown)
// writes everything queued. The sums answer /admin/usage and the budgets.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
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
#include "gateway/ledger_row.hpp"
#include "gateway/sqlite_db.hpp"

namespace infergate::gateway {

struct UsageGroup {
  std::string key_id;
  std::string model;
  std::string day;  // UTC, YYYY-MM-DD
  std::int64_t requests = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  double cost_usd = 0;
};

class JournalFile;

class Ledger {
 public:
  // Opens the sums in the SQLite file `db` (creating their tables) and the journal at `journal`;
  // throws std::runtime_error when it cannot.
  Ledger(const std::string& db, std::string journal, std::chrono::milliseconds flush);
  ~Ledger();
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // Queues a row; never waits for the disk.
  void append(LedgerRow row);
  // Writes every queued row now.
  void flush();

  // Aggregates by key, model and UTC day; `key_id` empty: every key.
  std::vector<UsageGroup> usage(const std::string& key_id);

  // What `key_id` spent in the budget period that contains now: the sums as of the last
  // refresh_spend(), plus this process's rows those sums lack (queued, or written since): exact
  // for the rows of this process.
  [[nodiscard]] double spend(const std::string& key_id, BudgetPeriod period) const;
  // Reads each key's spending per period from the sums (the key cache's thread calls it).
  void refresh_spend();

  [[nodiscard]] std::uint64_t rows_written() const { return rows_written_.load(std::memory_order_relaxed); }

 private:
  struct Spend {
    std::unordered_map<std::string, double> day;
    std::unordered_map<std::string, double> month;
    std::unordered_map<std::string, double> total;
    std::int64_t batches = 0;  // the sums hold the batches numbered up to this one
  };
  // Costs written that the spend snapshot does not hold yet: they stay counted from the queue
  // until a refresh has read the sums as of batch `number` or later.
  struct WrittenBatch {
    std::int64_t number = 0;
    std::unordered_map<std::string, double> cost;  // per key
  };
  void loop();
  // Takes a counted batch's costs out of queued_cost_ (queue_mutex_ held).
  void forget(const WrittenBatch& batch);
  // Appends `rows` to the journal and adds them to the sums in one transaction; returns the
  // batch's number.
  std::int64_t write(std::span<const LedgerRow> rows);
  // Counts what the journal holds past `counted` bytes (rows a writer appended but did not live
  // to add to the sums) and cuts off an unfinished last line; returns the journal's size after.
  std::int64_t catch_up(JournalFile& journal, std::int64_t counted);
  // Adds `rows` to the per-day and per-key sums (a write transaction open).
  void add_to_sums(std::span<const LedgerRow> rows);
  // Keeps the costs of a written batch counted until a refresh has them.
  void counted_on_disk(std::span<const LedgerRow> rows, std::int64_t number);

  SqliteDb writer_;
  std::string journal_path_;
  std::unique_ptr<Statement> add_day_;  // used under write_mutex_, as are the two below
  std::unique_ptr<Statement> add_total_;
  std::string lines_;  // the batch's journal lines
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
