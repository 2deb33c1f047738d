#include "gateway/ledger.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <ctime>
#include <thread>

#include "core/background_thread.hpp"

namespace infergate::gateway {

namespace {

// Rows per transaction: about a third of a millisecond of SQLite's time on this machine, the
// longest the ledger keeps a core from an I/O thread that shares it.
constexpr std::size_t kRowsPerTransaction = 256;

std::int64_t now_unix() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

// Unix ms at which the UTC day and month containing `now` began.
std::int64_t day_start_ms(std::int64_t now) {
  return (now - now % 86'400) * 1000;
}

std::int64_t month_start_ms(std::int64_t now) {
  const std::time_t t = now;
  std::tm tm{};
  gmtime_r(&t, &tm);
  tm.tm_mday = 1;
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  return static_cast<std::int64_t>(timegm(&tm)) * 1000;
}

}  // namespace

double request_cost(std::int64_t prompt_tokens, std::int64_t completion_tokens, const std::optional<Price>& price) {
  if (!price) {
    return 0;
  }
  return (static_cast<double>(prompt_tokens) * price->input + static_cast<double>(completion_tokens) * price->output) /
         1e6;
}

Ledger::Ledger(const std::string& path, std::chrono::milliseconds flush)
    : writer_(path, "the usage ledger"), reader_(path, "the usage ledger"), flush_interval_(flush) {
  writer_.exec(
      "CREATE TABLE IF NOT EXISTS ledger ("
      " ts_ms INTEGER NOT NULL, request_id TEXT NOT NULL, key_id TEXT NOT NULL, model TEXT NOT NULL,"
      " upstream_model TEXT NOT NULL, provider TEXT NOT NULL, prompt_tokens INTEGER NOT NULL,"
      " completion_tokens INTEGER NOT NULL, token_source TEXT NOT NULL, cost_usd REAL NOT NULL,"
      " status INTEGER NOT NULL, ttft_ms REAL, duration_ms REAL NOT NULL)");
  writer_.exec("CREATE INDEX IF NOT EXISTS ledger_time ON ledger (ts_ms)");
  spend_.store(std::make_shared<const Spend>());
  refresh_spend();
  thread_ = std::thread([this] {
    become_background_thread("ig-ledger");
    loop();
  });
}

Ledger::~Ledger() {
  {
    const std::lock_guard lock(queue_mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  try {
    flush();
  } catch (const std::exception& e) {
    spdlog::error("the usage ledger could not write its last rows: {}", e.what());
  }
}

void Ledger::append(LedgerRow row) {
  const std::lock_guard lock(queue_mutex_);
  if (row.cost_usd > 0) {
    queued_cost_[row.key_id] += row.cost_usd;
  }
  queue_.push_back(std::move(row));
}

void Ledger::loop() {
  std::unique_lock lock(queue_mutex_);
  while (!wake_.wait_for(lock, flush_interval_, [this] { return stopping_; })) {
    lock.unlock();
    try {
      flush();
    } catch (const std::exception& e) {
      // The rows stay queued; the next interval tries again.
      spdlog::error("usage ledger write failed, will retry: {}", e.what());
    }
    lock.lock();
  }
}

void Ledger::flush() {
  const std::lock_guard writing(write_mutex_);
  // The queue takes the emptied vector of the last flush: its capacity stays, so the I/O threads
  // do not grow it again, row by row, every interval.
  std::vector<LedgerRow>& rows = writing_;
  {
    const std::lock_guard lock(queue_mutex_);
    rows.swap(queue_);
  }
  std::size_t done = 0;
  try {
    while (done < rows.size()) {
      const std::span<const LedgerRow> part(rows.data() + done, std::min(kRowsPerTransaction, rows.size() - done));
      counted_on_disk(part, write(part));
      done += part.size();
      if (done < rows.size()) {
        // The I/O threads may share this core: they get it back between transactions, instead
        // of waiting out a scheduler slice of the whole interval's rows.
        std::this_thread::yield();
      }
    }
  } catch (...) {
    const std::lock_guard lock(queue_mutex_);
    queue_.insert(queue_.begin(), std::make_move_iterator(rows.begin() + static_cast<std::ptrdiff_t>(done)),
                  std::make_move_iterator(rows.end()));
    rows.clear();
    throw;
  }
  rows.clear();
}

void Ledger::counted_on_disk(std::span<const LedgerRow> rows, std::int64_t last_rowid) {
  // Summed per key and day before taking the lock the I/O threads queue rows under.
  auto batch = std::make_shared<WrittenBatch>();
  batch->first_rowid = last_rowid - static_cast<std::int64_t>(rows.size()) + 1;
  batch->last_rowid = last_rowid;
  for (const LedgerRow& row : rows) {
    if (row.cost_usd > 0) {
      batch->cost[{row.key_id, day_start_ms(row.ts_ms / 1000)}] += row.cost_usd;
    }
  }
  const std::lock_guard lock(queue_mutex_);
  if (last_rowid <= spend_.load()->last_rowid) {
    // A refresh between the commit and now read these rows from disk already.
    forget(*batch);
    return;
  }
  written_.push_back(std::move(batch));
}

void Ledger::forget(const WrittenBatch& batch) {
  for (const auto& [key_day, cost] : batch.cost) {
    queued_cost_[key_day.first] -= cost;
  }
}

namespace {

constexpr int kColumns = 13;
// Rows per INSERT statement: one statement for many rows costs SQLite a third less per row than a
// statement per row (bench/RESULTS.md, "Control-plane overhead").
constexpr std::size_t kRowsPerInsert = 32;

std::string insert_sql(std::size_t rows) {
  std::string sql =
      "INSERT INTO ledger (ts_ms, request_id, key_id, model, upstream_model, provider, prompt_tokens,"
      " completion_tokens, token_source, cost_usd, status, ttft_ms, duration_ms) VALUES ";
  for (std::size_t r = 0; r < rows; ++r) {
    sql += r == 0 ? "(?,?,?,?,?,?,?,?,?,?,?,?,?)" : ",(?,?,?,?,?,?,?,?,?,?,?,?,?)";
  }
  return sql;
}

// Binds `row` as the `slot`-th row of a multi-row INSERT. The texts are bound in place: the rows
// outlive the statement's run.
void bind_row(Statement& insert, std::size_t slot, const LedgerRow& r) {
  const int base = static_cast<int>(slot) * kColumns;
  insert.bind(base + 1, r.ts_ms);
  insert.bind_static(base + 2, r.request_id);
  insert.bind_static(base + 3, r.key_id);
  insert.bind_static(base + 4, r.model);
  insert.bind_static(base + 5, r.upstream_model);
  insert.bind_static(base + 6, r.provider);
  insert.bind(base + 7, r.prompt_tokens);
  insert.bind(base + 8, r.completion_tokens);
  insert.bind_static(base + 9, r.token_source);
  insert.bind(base + 10, r.cost_usd);
  insert.bind(base + 11, static_cast<std::int64_t>(r.status));
  insert.bind(base + 12, r.ttft_ms);
  insert.bind(base + 13, r.duration_ms);
}

}  // namespace

std::int64_t Ledger::write(std::span<const LedgerRow> rows) {
  writer_.exec("BEGIN IMMEDIATE");
  try {
    std::size_t at = 0;
    if (rows.size() >= kRowsPerInsert) {
      if (!insert_many_) {
        // Prepared once: compiling an INSERT of 416 parameters costs about what writing 100 rows does.
        insert_many_ = std::make_unique<Statement>(writer_, insert_sql(kRowsPerInsert));
      }
      Statement& many = *insert_many_;
      many.reset();  // a failed write leaves it mid-step
      for (; rows.size() - at >= kRowsPerInsert; at += kRowsPerInsert) {
        for (std::size_t slot = 0; slot < kRowsPerInsert; ++slot) {
          bind_row(many, slot, rows[at + slot]);
        }
        many.step();
        many.reset();
      }
    }
    if (at < rows.size()) {
      Statement rest(writer_, insert_sql(rows.size() - at));
      for (std::size_t slot = 0; at + slot < rows.size(); ++slot) {
        bind_row(rest, slot, rows[at + slot]);
      }
      rest.step();
    }
  } catch (...) {
    writer_.exec("ROLLBACK");
    throw;
  }
  const std::int64_t last_rowid = writer_.last_insert_rowid();
  writer_.exec("COMMIT");
  rows_written_.fetch_add(rows.size(), std::memory_order_relaxed);
  return last_rowid;
}

std::vector<UsageGroup> Ledger::usage(const std::string& key_id) {
  const std::lock_guard lock(reader_mutex_);
  Statement s(reader_,
              "SELECT key_id, model, date(ts_ms / 1000, 'unixepoch') AS day, count(*), sum(prompt_tokens),"
              " sum(completion_tokens), sum(cost_usd) FROM ledger WHERE ?1 = '' OR key_id = ?1"
              " GROUP BY key_id, model, day ORDER BY day, key_id, model");
  s.bind(1, key_id);
  std::vector<UsageGroup> out;
  while (s.step()) {
    out.push_back(UsageGroup{s.text(0), s.text(1), s.text(2), s.integer(3).value_or(0), s.integer(4).value_or(0),
                             s.integer(5).value_or(0), s.real(6).value_or(0)});
  }
  return out;
}

void Ledger::refresh_spend() {
  const std::int64_t now = now_unix();
  auto next = std::make_shared<Spend>(*spend_.load());
  const std::lock_guard lock(reader_mutex_);
  // One read transaction: every query sees the same rows.
  reader_.exec("BEGIN");
  try {
    Statement newest(reader_, "SELECT coalesce(max(rowid), 0) FROM ledger");
    newest.step();
    const std::int64_t last = newest.integer(0).value_or(0);
    auto sums = [&](std::int64_t since_ms, std::unordered_map<std::string, double>& out) {
      out.clear();
      Statement s(reader_,
                  "SELECT key_id, sum(cost_usd) FROM ledger WHERE ts_ms >= ?1 AND rowid <= ?2 AND cost_usd > 0"
                  " GROUP BY key_id");
      s.bind(1, since_ms);
      s.bind(2, last);
      while (s.step()) {
        out[s.text(0)] = s.real(1).value_or(0);
      }
    };
    // A period that began since the last call is summed afresh; the others take the new rows.
    const bool first = next->last_rowid < 0;
    const bool new_month = first || next->month_start_ms != month_start_ms(now);
    const bool new_day = first || next->day_start_ms != day_start_ms(now);
    if (first) {
      sums(0, next->total);
    }
    if (new_month) {
      next->month_start_ms = month_start_ms(now);
      sums(next->month_start_ms, next->month);
    }
    if (new_day) {
      next->day_start_ms = day_start_ms(now);
      sums(next->day_start_ms, next->day);
    }
    if (!first) {
      auto add = [&](const std::string& key, std::int64_t ts_ms, double cost) {
        next->total[key] += cost;
        if (!new_month && ts_ms >= next->month_start_ms) {
          next->month[key] += cost;
        }
        if (!new_day && ts_ms >= next->day_start_ms) {
          next->day[key] += cost;
        }
      };
      Statement added(reader_,
                      "SELECT key_id, ts_ms, cost_usd FROM ledger WHERE rowid > ?1 AND rowid <= ?2 AND cost_usd > 0");
      auto read_rows = [&](std::int64_t after, std::int64_t up_to) {
        if (up_to <= after) {
          return;
        }
        added.bind(1, after);
        added.bind(2, up_to);
        while (added.step()) {
          add(added.text(0), added.integer(1).value_or(0), added.real(2).value_or(0));
        }
        added.reset();
      };
      // This process's batches are counted from what it wrote; only the rows between them (other
      // writers') are read back.
      std::vector<std::shared_ptr<const WrittenBatch>> own;
      {
        const std::lock_guard queue_lock(queue_mutex_);
        own = written_;
      }
      std::int64_t counted = next->last_rowid;
      for (const auto& batch : own) {
        if (batch->last_rowid <= counted) {
          continue;
        }
        if (batch->last_rowid > last) {
          break;  // committed after this transaction began: the next refresh counts it
        }
        read_rows(counted, batch->first_rowid - 1);
        for (const auto& [key_day, cost] : batch->cost) {
          add(key_day.first, key_day.second, cost);
        }
        counted = batch->last_rowid;
      }
      read_rows(counted, last);
    }
    next->last_rowid = last;
  } catch (...) {
    reader_.exec("ROLLBACK");
    throw;
  }
  reader_.exec("COMMIT");
  // The snapshot and the costs it now holds change together, under the lock spend() reads both by.
  const std::lock_guard queue_lock(queue_mutex_);
  const std::int64_t counted = next->last_rowid;
  std::erase_if(written_, [&](const std::shared_ptr<const WrittenBatch>& batch) {
    if (batch->last_rowid > counted) {
      return false;
    }
    forget(*batch);
    return true;
  });
  spend_.store(std::move(next));
}

double Ledger::spend(const std::string& key_id, BudgetPeriod period) const {
  const std::lock_guard lock(queue_mutex_);
  const auto snapshot = spend_.load();
  const auto& map = period == BudgetPeriod::day     ? snapshot->day
                    : period == BudgetPeriod::month ? snapshot->month
                                                    : snapshot->total;
  const auto it = map.find(key_id);
  double total = it == map.end() ? 0.0 : it->second;
  if (const auto queued = queued_cost_.find(key_id); queued != queued_cost_.end()) {
    total += queued->second;
  }
  return total;
}

}  // namespace infergate::gateway
