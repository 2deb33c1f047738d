#include "gateway/key_store.hpp"

#include <fmt/format.h>
#include <sqlite3.h>
#include <boost/json.hpp>

#include <ctime>
#include <stdexcept>

namespace infergate::gateway {

namespace {

// A prepared statement, finalised on every way out.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql, const std::string& path) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      fail("prepare");
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int i, const std::string& text) {
    check(sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
  }
  void bind(int i, std::int64_t value) { check(sqlite3_bind_int64(stmt_, i, value)); }
  void bind(int i, double value) { check(sqlite3_bind_double(stmt_, i, value)); }
  template <class T>
  void bind(int i, const std::optional<T>& value) {
    if (value) {
      bind(i, *value);
    } else {
      check(sqlite3_bind_null(stmt_, i));
    }
  }

  // True while rows come.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) {
      return true;
    }
    if (rc != SQLITE_DONE) {
      fail("step");
    }
    return false;
  }

  std::string text(int column) const {
    const auto* p = sqlite3_column_text(stmt_, column);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)))
             : std::string();
  }
  std::optional<std::int64_t> integer(int column) const {
    if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) {
      return std::nullopt;
    }
    return sqlite3_column_int64(stmt_, column);
  }
  std::optional<double> real(int column) const {
    if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) {
      return std::nullopt;
    }
    return sqlite3_column_double(stmt_, column);
  }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) {
      fail("bind");
    }
  }
  [[noreturn]] void fail(const char* what) {
    throw std::runtime_error(fmt::format("{}: SQLite {} failed: {}", path_, what, sqlite3_errmsg(db_)));
  }

  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  const std::string& path_;
};

constexpr const char* kColumns =
    "id, hash, name, models, rpm, tpm, max_parallel, budget_usd, budget_period, expires_at, metadata, created_at, "
    "revoked_at";

std::string models_json(const std::vector<std::string>& models) {
  boost::json::array a;
  for (const auto& m : models) {
    a.emplace_back(m);
  }
  return boost::json::serialize(a);
}

std::vector<std::string> parse_models(const std::string& text) {
  std::vector<std::string> models;
  boost::system::error_code ec;
  const auto value = boost::json::parse(text, ec);
  if (!ec && value.is_array()) {
    for (const auto& m : value.get_array()) {
      if (m.is_string()) {
        models.emplace_back(m.get_string());
      }
    }
  }
  return models;
}

KeyRecord read_row(const Statement& s) {
  KeyRecord r;
  r.id = s.text(0);
  r.hash = from_hex(s.text(1)).value_or(KeyHash{});
  r.settings.name = s.text(2);
  r.settings.models = parse_models(s.text(3));
  r.settings.rpm = s.integer(4);
  r.settings.tpm = s.integer(5);
  r.settings.max_parallel = s.integer(6);
  r.settings.budget_usd = s.real(7);
  r.settings.budget_period = parse_budget_period(s.text(8)).value_or(BudgetPeriod::month);
  r.settings.expires_at = s.integer(9);
  r.settings.metadata = s.text(10);
  r.created_at = s.integer(11).value_or(0);
  r.revoked_at = s.integer(12);
  return r;
}

// Binds every setting from parameter `first` on, in KeySettings order after the hash.
void bind_settings(Statement& s, int first, const KeySettings& k) {
  s.bind(first, k.name);
  s.bind(first + 1, models_json(k.models));
  s.bind(first + 2, k.rpm);
  s.bind(first + 3, k.tpm);
  s.bind(first + 4, k.max_parallel);
  s.bind(first + 5, k.budget_usd);
  s.bind(first + 6, std::string(to_string(k.budget_period)));
  s.bind(first + 7, k.expires_at);
  s.bind(first + 8, k.metadata);
}

std::int64_t now_unix() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

}  // namespace

KeyStore::KeyStore(const std::string& path) : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    const std::string reason = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error(fmt::format("cannot open the key database {}: {}", path, reason));
  }
  sqlite3_busy_timeout(db_, 5000);  // another process writing: wait for it rather than fail
  exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=NORMAL");
  exec(
      "CREATE TABLE IF NOT EXISTS keys ("
      " id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, name TEXT NOT NULL DEFAULT '',"
      " models TEXT NOT NULL DEFAULT '[]', rpm INTEGER, tpm INTEGER, max_parallel INTEGER, budget_usd REAL,"
      " budget_period TEXT NOT NULL DEFAULT 'month', expires_at INTEGER, metadata TEXT NOT NULL DEFAULT '{}',"
      " created_at INTEGER NOT NULL, revoked_at INTEGER)");
}

KeyStore::~KeyStore() {
  sqlite3_close(db_);
}

void KeyStore::exec(const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string reason = error ? error : sqlite3_errmsg(db_);
    sqlite3_free(error);
    throw std::runtime_error(fmt::format("{}: {}", path_, reason));
  }
}

KeyStore::Created KeyStore::create(const KeySettings& settings) {
  const std::lock_guard lock(mutex_);
  Created created;
  const NewKey fresh = generate_key();
  created.key = fresh.key;
  created.record.id = fresh.id;
  created.record.hash = hash_key(fresh.key);
  created.record.settings = settings;
  created.record.created_at = now_unix();
  Statement s(db_,
              "INSERT INTO keys (id, hash, name, models, rpm, tpm, max_parallel, budget_usd, budget_period, "
              "expires_at, metadata, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
              path_);
  s.bind(1, created.record.id);
  s.bind(2, to_hex(created.record.hash));
  bind_settings(s, 3, settings);
  s.bind(12, created.record.created_at);
  s.step();
  return created;
}

std::vector<KeyRecord> KeyStore::list() {
  const std::lock_guard lock(mutex_);
  Statement s(db_, fmt::format("SELECT {} FROM keys ORDER BY created_at, id", kColumns).c_str(), path_);
  std::vector<KeyRecord> out;
  while (s.step()) {
    out.push_back(read_row(s));
  }
  return out;
}

std::optional<KeyRecord> KeyStore::find(const std::string& id) {
  const std::lock_guard lock(mutex_);
  Statement s(db_, fmt::format("SELECT {} FROM keys WHERE id = ?1", kColumns).c_str(), path_);
  s.bind(1, id);
  if (!s.step()) {
    return std::nullopt;
  }
  return read_row(s);
}

bool KeyStore::update(const std::string& id, const KeySettings& settings) {
  const std::lock_guard lock(mutex_);
  Statement s(db_,
              "UPDATE keys SET name = ?2, models = ?3, rpm = ?4, tpm = ?5, max_parallel = ?6, budget_usd = ?7, "
              "budget_period = ?8, expires_at = ?9, metadata = ?10 WHERE id = ?1",
              path_);
  s.bind(1, id);
  bind_settings(s, 2, settings);
  s.step();
  return sqlite3_changes(db_) > 0;
}

bool KeyStore::revoke(const std::string& id) {
  const std::lock_guard lock(mutex_);
  Statement s(db_, "UPDATE keys SET revoked_at = COALESCE(revoked_at, ?2) WHERE id = ?1", path_);
  s.bind(1, id);
  s.bind(2, now_unix());
  s.step();
  return sqlite3_changes(db_) > 0;
}

}  // namespace infergate::gateway
