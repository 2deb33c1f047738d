#pragma once
// The usage and cost ledger: one row per finished request of a known key (success, error,
// refusal or cancellation). The I/O threads copy each row into a queue in memory, without touching
// the disk, in batches of a fixed number of rows; a background thread takes each batch as soon as
// it is full, and the rest every `flush` interval, formats their rows as usage-journal lines (one
// JSON line each, ledger_journal.hpp), sums them per key, model and day, appends the lines to the
// journal and adds the sums to those in SQLite beside the keys, one transaction per batch, so a
// SIGKILL loses at most the rows of the last interval; destruction (a graceful shutdown) writes
// everything queued. The sums answer /admin/usage and the budgets.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/drop_behind.hpp"
#include "core/text_hash.hpp"
#include "gateway/config.hpp"
#include "gateway/key_record.hpp"
#include "gateway/key_spend.hpp"
#include "gateway/ledger_row.hpp"
#include "gateway/packed_rows.hpp"
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

// Which daily sums a usage report covers; an empty field does not filter.
struct UsageFilter {
  std::string key_id;
  std::string model;
  std::string since;  // UTC day, YYYY-MM-DD, inclusive
  std::string until;  // UTC day, YYYY-MM-DD, inclusive
};

struct LedgerStats {
  std::uint64_t rows_written = 0;    // in the journal and the sums
  std::uint64_t rows_queued = 0;     // handed over, not yet written
  std::uint64_t write_failures = 0;  // flushes that failed (their rows stay queued)
};

class JournalFile;

class Ledger {
 public:
  // Rows per batch (about 256 KiB of journal), formatted and written in one transaction: a few
  // tenths of a millisecond of the ledger thread's time on this machine, the longest it keeps a
  // core from an I/O thread that shares it.
  static constexpr std::size_t kBatchRows = 900;

  // Opens the sums in the SQLite file `db` (creating their tables) and the journal at `journal`;
  // throws std::runtime_error when it cannot.
  Ledger(const std::string& db, std::string journal, std::chrono::milliseconds flush);
  ~Ledger();
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // Queues a row; never waits for the disk. `spend`: the row's key's slot (slot(row.key_id)), when
  // the caller holds it.
  void append(const LedgerRow& row, KeySpend* spend = nullptr);
  // Writes every queued row now.
  void flush();

  // Aggregates by key, model and UTC day, those `filter` lets through.
  std::vector<UsageGroup> usage(const UsageFilter& filter = {});

  // What `key_id` spends, at an address that stays as long as the ledger: in(period) is the sums
  // as of the last refresh_spend() plus this process's rows those sums lack (queued, or written
  // since), exact for the rows of this process.
  KeySpend& slot(std::string_view key_id);
  // Reads each key's spending per period from the sums (the key cache's thread calls it).
  void refresh_spend();

  [[nodiscard]] std::uint64_t rows_written() const { return rows_written_.load(std::memory_order_relaxed); }
  [[nodiscard]] LedgerStats stats() const;

 private:
  using CostByKey = std::unordered_map<std::string, double, TextHash, std::equal_to<>>;
  struct Sums {
    std::int64_t requests = 0;
    std::int64_t prompt_tokens = 0;
    std::int64_t completion_tokens = 0;
    double cost_usd = 0;
  };
  // (UTC day number, key id, model): the sums' key, held with its own strings and looked up by
  // views into a row.
  using Group = std::tuple<std::int64_t, std::string, std::string>;
  using GroupView = std::tuple<std::int64_t, std::string_view, std::string_view>;
  struct GroupLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return GroupView(std::get<0>(a), std::get<1>(a), std::get<2>(a)) <
             GroupView(std::get<0>(b), std::get<1>(b), std::get<2>(b));
    }
  };
  // Rows on their way to disk: as the I/O threads queued them, then (once the ledger thread has
  // formatted them) their journal lines and what they add to each group's sums.
  struct Batch {
    Batch() = default;
    // Moved, never copied: `last` points into `sums`, whose nodes a move hands over.
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;
    Batch(Batch&& other) noexcept
        : queued(std::move(other.queued)),
          lines(std::move(other.lines)),
          rows(other.rows),
          sums(std::move(other.sums)),
          last(std::exchange(other.last, nullptr)) {}
    Batch& operator=(Batch&& other) noexcept {
      queued = std::move(other.queued);
      lines = std::move(other.lines);
      rows = other.rows;
      sums = std::move(other.sums);
      last = std::exchange(other.last, nullptr);
      return *this;
    }
    ~Batch() = default;

    PackedRows queued;  // not yet formatted
    std::string lines;
    std::size_t rows = 0;  // queued or in the lines
    std::map<Group, Sums, GroupLess> sums;
    // The group the last row added to: rows come mostly from the key and model of the row before.
    std::map<Group, Sums, GroupLess>::value_type* last = nullptr;

    // Queues a row (an I/O thread).
    void queue(const LedgerRow& row);
    // Formats the queued rows into the lines and the sums (the ledger thread).
    void format();
    // Adds a row to the sums and the count, not to the lines.
    void add(const LedgerRow& row);
    void sum(const LedgerRow& row);
    struct LinesRead {
      std::size_t bytes = 0;       // of the whole lines, each with its newline
      std::size_t unreadable = 0;  // lines that were not rows, skipped
    };
    // Adds the rows of the whole journal lines in `text` (the lines themselves are not kept).
    LinesRead add_lines(std::string_view text);
    // Empty, its line buffer's capacity kept.
    void clear();
  };
  // Costs written that the slots' sums do not hold yet: they stay in their keys' unsaved cost
  // until a refresh has read the sums as of batch `number` or later.
  struct WrittenBatch {
    std::int64_t number = 0;
    std::unordered_map<std::string, double> cost;  // per key
  };
  // A key database from before the journal keeps an SQLite row per request in `ledger`: its
  // sums are carried over once, and the table is kept under another name.
  void carry_over_row_table();
  void loop();
  // Writes the queued batches: all of them, or (`full_only`) those that are full, leaving the one
  // the I/O threads are filling.
  void write_queued(bool full_only);
  // How many batches at the queue's front are full: all but the one being filled (queue_mutex_
  // held).
  [[nodiscard]] std::size_t full_batches() const;
  // slot() with queue_mutex_ held.
  KeySpend& slot_locked(std::string_view key_id);
  // Formats the batch's queued rows, appends its lines to the journal and adds its sums to those
  // on disk in one transaction; returns the batch's number.
  std::int64_t write(Batch& batch);
  // After a failed write whose lines could not be cut back off the journal: the whole lines that
  // made it in are left to the next write's catch_up (numbered `number`), and `batch` keeps only
  // the rows still to write.
  void leave_to_catch_up(const JournalFile& journal, std::int64_t counted, Batch& batch, std::int64_t number);
  // Counts what the journal holds past `counted` bytes (rows a writer appended but did not live
  // to add to the sums) and cuts off an unfinished last line; returns the journal's size after.
  std::int64_t catch_up(JournalFile& journal, std::int64_t counted);
  // Adds `sums` to those on disk (a write transaction open).
  void add_to_disk(const decltype(Batch::sums)& sums);
  // Keeps the costs of a written batch counted until a refresh has them.
  void counted_on_disk(const Batch& batch, std::int64_t number);

  SqliteDb writer_;
  std::string journal_path_;
  DropBehind journal_pages_;  // used under write_mutex_
  // Prepared once, used under write_mutex_: a batch's transaction would otherwise prepare its
  // statements again every time.
  std::unique_ptr<Statement> add_day_;
  std::unique_ptr<Statement> add_total_;
  std::unique_ptr<Statement> begin_;
  std::unique_ptr<Statement> commit_;
  std::unique_ptr<Statement> read_journal_state_;
  std::unique_ptr<Statement> advance_journal_state_;
  SqliteDb reader_;
  std::mutex reader_mutex_;
  std::chrono::milliseconds flush_interval_;

  mutable std::mutex queue_mutex_;
  std::vector<Batch> queue_;  // the last one fills; the next begins when its lines pass a size
  std::vector<Batch> spare_;  // written and emptied, for the queue to fill again
  std::uint64_t rows_appended_ = 0;
  // Per key; a slot's unsaved cost is that of the rows the sums it holds lack.
  std::unordered_map<std::string, std::unique_ptr<KeySpend>, TextHash, std::equal_to<>> spend_;
  std::int64_t spend_batches_ = 0;  // the slots' sums hold the batches numbered up to this one
  std::vector<std::shared_ptr<const WrittenBatch>> written_;  // of the unsaved rows, those on disk, oldest first
  std::mutex write_mutex_;                                    // one flush at a time
  std::vector<Batch> writing_;                                // the batches of the flush in progress
  std::condition_variable wake_;
  bool stopping_ = false;
  std::atomic<std::uint64_t> rows_written_{0};
  std::atomic<std::uint64_t> write_failures_{0};
  std::thread thread_;
};

// The cost of a request at `price` (USD per million tokens); 0 without a price.
double request_cost(std::int64_t prompt_tokens, std::int64_t completion_tokens, const std::optional<Price>& price);

}  // namespace infergate::gateway
