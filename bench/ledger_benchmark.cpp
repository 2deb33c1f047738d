// What the usage ledger costs per request, all of it on whichever core runs it: the I/O thread's
// append (format the journal line, add to the batch's sums) plus the background thread's flush
// (append the lines to the journal, add the sums in one SQLite transaction per batch). Against it,
// the design it replaced: an SQLite row per request (13 columns, an index on the time, 32 rows
// per INSERT, a transaction per 256 rows), fed the same rows. Alternating rounds; the median and
// the ratio are printed.
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "gateway/ledger.hpp"
#include "gateway/sqlite_db.hpp"

namespace {

using infergate::gateway::Ledger;
using infergate::gateway::LedgerRow;
using infergate::gateway::SqliteDb;
using infergate::gateway::Statement;

constexpr int kColumns = 13;
constexpr int kRowsPerInsert = 32;
constexpr int kRowsPerTransaction = 256;
constexpr int kRows = 118 * kRowsPerTransaction;  // about one flush interval of a gateway at 60k requests/s

// A request of gateway_overhead.py's plain load, as the proxy hands it over.
LedgerRow request(int i) {
  LedgerRow r;
  r.ts_ms = 1'764'528'000'000 + i;
  r.request_id = "6f1d0c2e9a7b4d58b3e1f0a9c8d7e6f5";
  r.key_id = "AbCdEfGhIjKl";
  r.model = "plain";
  r.upstream_model = "bench";
  r.provider = "plain";
  r.prompt_tokens = 128;
  r.completion_tokens = 60;
  r.token_source = "usage";
  r.cost_usd = 2.48e-5;
  r.status = 200;
  r.ttft_ms = 0.812;
  r.duration_ms = 1.234;
  return r;
}

double ns_per_row(const std::chrono::steady_clock::time_point& start) {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / kRows;
}

double ledger_round(Ledger& ledger) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRows; ++i) {
    ledger.append(request(i));
  }
  ledger.flush();
  return ns_per_row(start);
}

class RowPerRequest {
 public:
  explicit RowPerRequest(const std::string& path) : db_(path, "the baseline ledger") {
    db_.exec(
        "CREATE TABLE ledger (ts_ms INTEGER NOT NULL, request_id TEXT NOT NULL, key_id TEXT NOT NULL,"
        " model TEXT NOT NULL, upstream_model TEXT NOT NULL, provider TEXT NOT NULL, prompt_tokens INTEGER NOT NULL,"
        " completion_tokens INTEGER NOT NULL, token_source TEXT NOT NULL, cost_usd REAL NOT NULL,"
        " status INTEGER NOT NULL, ttft_ms REAL, duration_ms REAL NOT NULL)");
    db_.exec("CREATE INDEX ledger_time ON ledger (ts_ms)");
    std::string sql = "INSERT INTO ledger VALUES ";
    for (int r = 0; r < kRowsPerInsert; ++r) {
      sql += r == 0 ? "(?,?,?,?,?,?,?,?,?,?,?,?,?)" : ",(?,?,?,?,?,?,?,?,?,?,?,?,?)";
    }
    insert_ = std::make_unique<Statement>(db_, sql);
  }

  // The queue held rows with their own strings, as the proxy handed them over.
  struct OwnedRow {
    LedgerRow row;
    std::string request_id, key_id, model, upstream_model, provider;
  };

  double round() {
    const auto start = std::chrono::steady_clock::now();
    std::vector<OwnedRow> queue;
    for (int i = 0; i < kRows; ++i) {
      const LedgerRow r = request(i);
      queue.push_back({r, std::string(r.request_id), std::string(r.key_id), std::string(r.model),
                       std::string(r.upstream_model), std::string(r.provider)});
    }
    for (int done = 0; done < kRows; done += kRowsPerTransaction) {
      db_.exec("BEGIN IMMEDIATE");
      for (int at = done; at < done + kRowsPerTransaction; at += kRowsPerInsert) {
        for (int slot = 0; slot < kRowsPerInsert; ++slot) {
          bind(slot, queue[static_cast<std::size_t>(at) + static_cast<std::size_t>(slot)]);
        }
        insert_->step();
        insert_->reset();
      }
      db_.exec("COMMIT");
    }
    return ns_per_row(start);
  }

 private:
  void bind(int slot, const OwnedRow& o) {
    const int base = slot * kColumns;
    const LedgerRow& r = o.row;
    insert_->bind(base + 1, r.ts_ms);
    insert_->bind_static(base + 2, o.request_id);
    insert_->bind_static(base + 3, o.key_id);
    insert_->bind_static(base + 4, o.model);
    insert_->bind_static(base + 5, o.upstream_model);
    insert_->bind_static(base + 6, o.provider);
    insert_->bind(base + 7, r.prompt_tokens);
    insert_->bind(base + 8, r.completion_tokens);
    insert_->bind_static(base + 9, r.token_source);
    insert_->bind(base + 10, r.cost_usd);
    insert_->bind(base + 11, static_cast<std::int64_t>(r.status));
    insert_->bind(base + 12, r.ttft_ms);
    insert_->bind(base + 13, r.duration_ms);
  }

  SqliteDb db_;
  std::unique_ptr<Statement> insert_;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  const auto dir = std::filesystem::temp_directory_path() / ("infergate-ledger-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<double> ours;
  std::vector<double> theirs;
  {
    Ledger ledger((dir / "keys.db").string(), (dir / "ledger.jsonl").string(), std::chrono::hours(1));
    RowPerRequest baseline((dir / "baseline.db").string());
    for (int round = 0; round < 7; ++round) {
      ours.push_back(ledger_round(ledger));
      theirs.push_back(baseline.round());
    }
  }
  std::filesystem::remove_all(dir);
  std::printf("%-44s %12s\n", "usage ledger, per request", "ns (median)");
  std::printf("%-44s %12.0f\n", "journal line + per-day sums (infergate)", median(ours));
  std::printf("%-44s %12.0f\n", "an SQLite row per request (the design before)", median(theirs));
  std::printf("%-44s %12.2f\n", "ratio", median(ours) / median(theirs));
  return 0;
}
