#include "gateway/ledger.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/json/value.hpp>
#include <ctime>
#include <thread>
#include <tuple>

#include "core/background_thread.hpp"
#include "gateway/ledger_journal.hpp"

namespace infergate::gateway {

namespace {

// Emptied batches kept for reuse: after a burst that queued many batches before the ledger thread
// wrote them, their row and line buffers (a few megabytes) are not allocated and faulted in again.
constexpr std::size_t kSpareBatches = 32;
constexpr std::int64_t kDayMs = 86'400'000;

std::int64_t now_ms() {
  return static_cast<std::int64_t>(std::time(nullptr)) * 1000;
}

// The UTC day, YYYY-MM-DD, of day number `day` (days since 1970-01-01).
std::string utc_day(std::int64_t day) {
  const std::time_t t = day * 86'400;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[16];
  const std::size_t n = std::strftime(text, sizeof(text), "%Y-%m-%d", &tm);
  return {text, n};
}

std::int64_t day_of(std::int64_t ts_ms) {
  return ts_ms >= 0 ? ts_ms / kDayMs : (ts_ms - kDayMs + 1) / kDayMs;
}

}  // namespace

double request_cost(std::int64_t prompt_tokens, std::int64_t completion_tokens, const std::optional<Price>& price) {
  if (!price) {
    return 0;
  }
  return (static_cast<double>(prompt_tokens) * price->input + static_cast<double>(completion_tokens) * price->output) /
         1e6;
}

Ledger::Ledger(const std::string& db, std::string journal, std::chrono::milliseconds flush)
    : writer_(db, "the usage ledger"),
      journal_path_(std::move(journal)),
      reader_(db, "the usage ledger"),
      flush_interval_(flush) {
  writer_.exec(
      "CREATE TABLE IF NOT EXISTS ledger_daily ("
      " day TEXT NOT NULL, key_id TEXT NOT NULL, model TEXT NOT NULL, requests INTEGER NOT NULL,"
      " prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL,"
      " PRIMARY KEY (day, key_id, model)) WITHOUT ROWID");
  writer_.exec(
      "CREATE TABLE IF NOT EXISTS ledger_key_total (key_id TEXT PRIMARY KEY, cost_usd REAL NOT NULL) WITHOUT ROWID");
  // `bytes`: how much of the journal the sums count; `batches`: how many batches they hold.
  writer_.exec(
      "CREATE TABLE IF NOT EXISTS ledger_journal (id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL,"
      " batches INTEGER NOT NULL)");
  writer_.exec("INSERT OR IGNORE INTO ledger_journal VALUES (1, 0, 0)");
  carry_over_row_table();
  add_day_ = std::make_unique<Statement>(
      writer_,
      "INSERT INTO ledger_daily VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (day, key_id, model) DO UPDATE SET"
      " requests = requests + excluded.requests, prompt_tokens = prompt_tokens + excluded.prompt_tokens,"
      " completion_tokens = completion_tokens + excluded.completion_tokens, cost_usd = cost_usd + excluded.cost_usd");
  add_total_ =
      std::make_unique<Statement>(writer_,
                                  "INSERT INTO ledger_key_total VALUES (?1, ?2) ON CONFLICT (key_id) DO UPDATE SET"
                                  " cost_usd = cost_usd + excluded.cost_usd");
  begin_ = std::make_unique<Statement>(writer_, "BEGIN IMMEDIATE");
  commit_ = std::make_unique<Statement>(writer_, "COMMIT");
  read_journal_state_ = std::make_unique<Statement>(writer_, "SELECT bytes, batches FROM ledger_journal");
  advance_journal_state_ = std::make_unique<Statement>(writer_, "UPDATE ledger_journal SET bytes = ?1, batches = ?2");
  refresh_spend();
  thread_ = std::thread([this] {
    become_background_thread("ig-ledger");
    loop();
  });
}

void Ledger::carry_over_row_table() {
  writer_.exec("BEGIN IMMEDIATE");
  try {
    bool found = false;
    {
      Statement table(writer_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'ledger'");
      table.step();
      found = table.integer(0).value_or(0) > 0;
    }
    if (found) {
      // WHERE true: SQLite's grammar needs a WHERE before an upsert's ON CONFLICT after a SELECT.
      writer_.exec(
          "INSERT INTO ledger_daily SELECT date(ts_ms / 1000, 'unixepoch'), key_id, model, count(*),"
          " sum(prompt_tokens), sum(completion_tokens), sum(cost_usd) FROM ledger WHERE true GROUP BY 1, 2, 3"
          " ON CONFLICT (day, key_id, model) DO UPDATE SET requests = requests + excluded.requests,"
          " prompt_tokens = prompt_tokens + excluded.prompt_tokens,"
          " completion_tokens = completion_tokens + excluded.completion_tokens,"
          " cost_usd = cost_usd + excluded.cost_usd");
      writer_.exec(
          "INSERT INTO ledger_key_total SELECT key_id, sum(cost_usd) FROM ledger WHERE true GROUP BY key_id"
          " ON CONFLICT (key_id) DO UPDATE SET cost_usd = cost_usd + excluded.cost_usd");
      writer_.exec("ALTER TABLE ledger RENAME TO ledger_rows_before_journal");
      spdlog::info(
          "the usage ledger's rows from before the journal are in its sums now, and kept in {} as "
          "ledger_rows_before_journal",
          writer_.path());
    }
  } catch (...) {
    writer_.exec("ROLLBACK");
    throw;
  }
  writer_.exec("COMMIT");
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
    spdlog::error("the usage ledger could not write its last {} rows: {}", stats().rows_queued, e.what());
  }
}

void Ledger::Batch::queue(const LedgerRow& row) {
  queued.append(row);
  ++rows;
}

void Ledger::Batch::format() {
  LedgerRow row;
  for (std::size_t at = 0; queued.next(at, row);) {
    lines += journal_line(row);
    sum(row);
  }
  queued.clear();
}

void Ledger::Batch::add(const LedgerRow& row) {
  ++rows;
  sum(row);
}

void Ledger::Batch::sum(const LedgerRow& row) {
  const GroupView group{day_of(row.ts_ms), row.key_id, row.model};
  if (last == nullptr || std::get<0>(last->first) != std::get<0>(group) ||
      std::get<1>(last->first) != std::get<1>(group) || std::get<2>(last->first) != std::get<2>(group)) {
    auto it = sums.find(group);
    if (it == sums.end()) {
      it = sums.emplace(Group{std::get<0>(group), row.key_id, row.model}, Sums{}).first;
    }
    last = &*it;
  }
  Sums& s = last->second;
  ++s.requests;
  s.prompt_tokens += row.prompt_tokens;
  s.completion_tokens += row.completion_tokens;
  s.cost_usd += row.cost_usd;
}

Ledger::Batch::LinesRead Ledger::Batch::add_lines(std::string_view text) {
  LinesRead read;
  boost::json::value line;
  for (std::size_t end = text.find('\n', read.bytes); end != std::string_view::npos;
       end = text.find('\n', read.bytes)) {
    if (auto row = parse_journal_line(text.substr(read.bytes, end - read.bytes), line)) {
      add(*row);
    } else {
      ++read.unreadable;
    }
    read.bytes = end + 1;
  }
  return read;
}

void Ledger::Batch::clear() {
  queued.clear();
  lines.clear();
  rows = 0;
  sums.clear();
  last = nullptr;
}

void Ledger::append(const LedgerRow& row, KeySpend* spend) {
  bool filled = false;
  {
    const std::lock_guard lock(queue_mutex_);
    if (queue_.empty() || queue_.back().rows >= kBatchRows) {
      if (spare_.empty()) {
        queue_.emplace_back();
      } else {
        queue_.push_back(std::move(spare_.back()));
        spare_.pop_back();
      }
    }
    queue_.back().queue(row);
    filled = queue_.back().rows == kBatchRows;
    ++rows_appended_;
    if (row.cost_usd > 0) {
      (spend != nullptr ? *spend : slot_locked(row.key_id)).add_unsaved(row.cost_usd);
    }
  }
  if (filled) {
    wake_.notify_one();
  }
}

std::size_t Ledger::full_batches() const {
  return queue_.size() - (queue_.empty() || queue_.back().rows >= kBatchRows ? 0 : 1);
}

KeySpend& Ledger::slot(std::string_view key_id) {
  const std::lock_guard lock(queue_mutex_);
  return slot_locked(key_id);
}

KeySpend& Ledger::slot_locked(std::string_view key_id) {
  auto it = spend_.find(key_id);
  if (it == spend_.end()) {
    it = spend_.emplace(std::string(key_id), std::make_unique<KeySpend>()).first;
  }
  return *it->second;
}

void Ledger::loop() {
  using Clock = std::chrono::steady_clock;
  std::unique_lock lock(queue_mutex_);
  Clock::time_point interval_ends = Clock::now() + flush_interval_;
  // A full batch is written at once, while its rows are still in the cache and before more
  // batches than the spares pile up; after a failed write, only at the next interval.
  bool when_full = true;
  while (!stopping_) {
    wake_.wait_until(lock, interval_ends,
                     [this, &when_full] { return stopping_ || (when_full && full_batches() > 0); });
    if (stopping_) {
      return;
    }
    const bool interval = Clock::now() >= interval_ends;
    lock.unlock();
    try {
      write_queued(!interval);
      when_full = true;
    } catch (const std::exception& e) {
      // The rows stay queued; the next interval tries again.
      when_full = false;
      spdlog::error("usage ledger write failed, will retry: {}", e.what());
    }
    if (interval) {
      interval_ends = Clock::now() + flush_interval_;
    }
    lock.lock();
  }
}

void Ledger::flush() {
  write_queued(false);
}

void Ledger::write_queued(bool full_only) {
  const std::lock_guard writing(write_mutex_);
  std::vector<Batch>& batches = writing_;
  {
    const std::lock_guard lock(queue_mutex_);
    if (full_only) {
      const std::size_t full = full_batches();
      batches.insert(batches.end(), std::make_move_iterator(queue_.begin()),
                     std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(full)));
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(full));
    } else {
      batches.swap(queue_);
    }
  }
  std::size_t done = 0;
  try {
    for (; done < batches.size(); ++done) {
      if (done > 0) {
        // The I/O threads may share this core: they get it back between transactions, instead
        // of waiting out a scheduler slice of the whole interval's rows.
        std::this_thread::yield();
      }
      counted_on_disk(batches[done], write(batches[done]));
    }
  } catch (...) {
    write_failures_.fetch_add(1, std::memory_order_relaxed);
    // A batch whose rows all stayed in the journal is queued too, empty: its write, the next
    // interval, counts them.
    const std::lock_guard lock(queue_mutex_);
    queue_.insert(queue_.begin(), std::make_move_iterator(batches.begin() + static_cast<std::ptrdiff_t>(done)),
                  std::make_move_iterator(batches.end()));
    batches.clear();
    throw;
  }
  const std::lock_guard lock(queue_mutex_);
  for (Batch& batch : batches) {
    if (spare_.size() < kSpareBatches) {
      batch.clear();
      spare_.push_back(std::move(batch));
    }
  }
  batches.clear();
}

void Ledger::counted_on_disk(const Batch& batch, std::int64_t number) {
  // Summed per key before taking the lock the I/O threads queue rows under.
  auto written = std::make_shared<WrittenBatch>();
  written->number = number;
  for (const auto& [group, sums] : batch.sums) {
    if (sums.cost_usd > 0) {
      written->cost[std::get<1>(group)] += sums.cost_usd;
    }
  }
  const std::lock_guard lock(queue_mutex_);
  if (number <= spend_batches_) {
    // A refresh between the commit and now read this batch in the sums already.
    for (const auto& [key, cost] : written->cost) {
      slot_locked(key).add_unsaved(-cost);
    }
    return;
  }
  written_.push_back(std::move(written));
}

std::int64_t Ledger::write(Batch& batch) {
  batch.format();
  begin_->reset();
  begin_->step();
  std::optional<JournalFile> journal;
  std::int64_t counted = -1;  // the journal's size before this batch, once known
  std::int64_t batches = 0;
  try {
    read_journal_state_->reset();
    read_journal_state_->step();
    const std::int64_t bytes = read_journal_state_->integer(0).value_or(0);
    batches = read_journal_state_->integer(1).value_or(0);
    read_journal_state_->reset();  // its read ends before the commit
    journal.emplace(journal_path_);
    counted = catch_up(*journal, bytes);
    journal->append(batch.lines);
    add_to_disk(batch.sums);
    advance_journal_state_->reset();
    advance_journal_state_->bind(1, counted + static_cast<std::int64_t>(batch.lines.size()));
    advance_journal_state_->bind(2, batches + 1);
    advance_journal_state_->step();
    commit_->reset();
    commit_->step();
    rows_written_.fetch_add(batch.rows, std::memory_order_relaxed);
    journal_pages_.appended(journal->fd(), counted, counted + static_cast<std::int64_t>(batch.lines.size()));
    return batches + 1;
  } catch (...) {
    // Lines the sums do not count must not stay in the journal: the batch is queued again and
    // would be written twice.
    if (counted >= 0) {
      try {
        journal->truncate(counted);
      } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        leave_to_catch_up(*journal, counted, batch, batches + 1);
      }
    }
    try {
      writer_.exec("ROLLBACK");
    } catch (const std::exception&) {
      // SQLite rolled back on its own (an I/O error does).
    }
    throw;
  }
}

void Ledger::leave_to_catch_up(const JournalFile& journal, std::int64_t counted, Batch& batch, std::int64_t number) {
  std::int64_t size = 0;
  try {
    size = journal.size();
  } catch (const std::exception& e) {
    spdlog::error("{}: the batch is queued again, and rows of it the journal holds may be counted twice", e.what());
    return;
  }
  // The write lock is still held: whatever lies past `counted` is this batch's.
  const auto landed = static_cast<std::size_t>(
      std::clamp<std::int64_t>(size - counted, 0, static_cast<std::int64_t>(batch.lines.size())));
  Batch journaled;
  const std::size_t whole = journaled.add_lines(std::string_view(batch.lines).substr(0, landed)).bytes;
  if (whole == 0) {
    return;
  }
  Batch rest;
  rest.add_lines(std::string_view(batch.lines).substr(whole));
  rest.lines.assign(batch.lines, whole);
  rows_written_.fetch_add(journaled.rows, std::memory_order_relaxed);
  counted_on_disk(journaled, number);
  batch = std::move(rest);
}

std::int64_t Ledger::catch_up(JournalFile& journal, std::int64_t counted) {
  const std::int64_t size = journal.size();
  if (size < counted) {
    spdlog::warn(
        "the usage journal {} holds {} bytes, fewer than the {} the ledger has counted: it was rotated or cut; "
        "the ledger goes on from its end",
        journal_path_, size, counted);
    return size;
  }
  if (size == counted) {
    return counted;
  }
  const std::string tail = journal.read(counted, size);
  Batch found;
  const auto [at, unreadable] = found.add_lines(tail);
  if (at < tail.size()) {
    journal.truncate(counted + static_cast<std::int64_t>(at));  // its writer died mid-line
  }
  add_to_disk(found.sums);
  spdlog::warn(
      "the usage journal {} held {} rows the ledger had not counted (a gateway stopped between writing and counting "
      "them): counted now{}{}",
      journal_path_, found.rows, unreadable > 0 ? fmt::format("; {} unreadable lines skipped", unreadable) : "",
      at < tail.size() ? "; an unfinished last line cut off" : "");
  return counted + static_cast<std::int64_t>(at);
}

void Ledger::add_to_disk(const decltype(Batch::sums)& sums) {
  std::unordered_map<std::string_view, double> totals;
  std::int64_t day_number = 0;
  std::string day;
  for (const auto& [group, s] : sums) {
    const auto& [number, key_id, model] = group;
    if (day.empty() || number != day_number) {
      day_number = number;
      day = utc_day(number);
    }
    add_day_->reset();
    add_day_->bind(1, day);
    add_day_->bind_static(2, key_id);
    add_day_->bind_static(3, model);
    add_day_->bind(4, s.requests);
    add_day_->bind(5, s.prompt_tokens);
    add_day_->bind(6, s.completion_tokens);
    add_day_->bind(7, s.cost_usd);
    add_day_->step();
    totals[key_id] += s.cost_usd;
  }
  for (const auto& [key_id, cost] : totals) {
    add_total_->reset();
    add_total_->bind_static(1, key_id);
    add_total_->bind(2, cost);
    add_total_->step();
  }
}

std::vector<UsageGroup> Ledger::usage(const UsageFilter& filter) {
  const std::lock_guard lock(reader_mutex_);
  Statement s(reader_,
              "SELECT key_id, model, day, requests, prompt_tokens, completion_tokens, cost_usd FROM ledger_daily"
              " WHERE (?1 = '' OR key_id = ?1) AND (?2 = '' OR model = ?2) AND (?3 = '' OR day >= ?3)"
              " AND (?4 = '' OR day <= ?4) ORDER BY day, key_id, model");
  s.bind(1, filter.key_id);
  s.bind(2, filter.model);
  s.bind(3, filter.since);
  s.bind(4, filter.until);
  std::vector<UsageGroup> out;
  while (s.step()) {
    out.push_back(UsageGroup{s.text(0), s.text(1), s.text(2), s.integer(3).value_or(0), s.integer(4).value_or(0),
                             s.integer(5).value_or(0), s.real(6).value_or(0)});
  }
  return out;
}

void Ledger::refresh_spend() {
  const std::string today = utc_day(day_of(now_ms()));
  std::int64_t batches = 0;
  std::unordered_map<std::string, PeriodSums, TextHash, std::equal_to<>> sums;
  {
    const std::lock_guard lock(reader_mutex_);
    // One read transaction: the sums and the batch count agree.
    reader_.exec("BEGIN");
    try {
      {
        Statement state(reader_, "SELECT batches FROM ledger_journal");
        state.step();
        batches = state.integer(0).value_or(0);
      }
      auto read = [&](const std::string& since, double PeriodSums::*period) {
        Statement s(reader_,
                    "SELECT key_id, sum(cost_usd) FROM ledger_daily WHERE day >= ?1 AND cost_usd > 0 GROUP BY key_id");
        s.bind(1, since);
        while (s.step()) {
          sums[s.text(0)].*period = s.real(1).value_or(0);
        }
      };
      read(today, &PeriodSums::day);
      read(today.substr(0, 8) + "01", &PeriodSums::month);
      Statement totals(reader_, "SELECT key_id, cost_usd FROM ledger_key_total WHERE cost_usd > 0");
      while (totals.step()) {
        sums[totals.text(0)].total = totals.real(1).value_or(0);
      }
    } catch (...) {
      reader_.exec("ROLLBACK");
      throw;
    }
    reader_.exec("COMMIT");
  }
  // The written costs these sums now hold leave each key's unsaved cost in the same change that
  // brings in the sums: a budget check never counts them twice, nor not at all.
  CostByKey counted;
  const std::lock_guard queue_lock(queue_mutex_);
  std::erase_if(written_, [&](const std::shared_ptr<const WrittenBatch>& batch) {
    if (batch->number > batches) {
      return false;
    }
    for (const auto& [key, cost] : batch->cost) {
      counted[key] += cost;
    }
    return true;
  });
  for (const auto& entry : sums) {
    slot_locked(entry.first);  // a key that spent through another replica
  }
  for (auto& [key, key_spend] : spend_) {
    const auto found = sums.find(key);
    const auto taken = counted.find(key);
    key_spend->refresh(found == sums.end() ? PeriodSums{} : found->second,
                       taken == counted.end() ? 0.0 : -taken->second);
  }
  spend_batches_ = batches;
}

LedgerStats Ledger::stats() const {
  const std::lock_guard lock(queue_mutex_);
  const std::uint64_t written = rows_written_.load(std::memory_order_relaxed);
  return LedgerStats{written, rows_appended_ - written, write_failures_.load(std::memory_order_relaxed)};
}

}  // namespace infergate::gateway
