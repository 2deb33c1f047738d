#include "gateway/sqlite_db.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <stdexcept>

namespace infergate::gateway {

SqliteDb::SqliteDb(const std::string& path, const std::string& what) : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    const std::string reason = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error(fmt::format("cannot open {} {}: {}", what, path, reason));
  }
  sqlite3_busy_timeout(db_, 5000);  // another connection writing: wait for it rather than fail
  exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=NORMAL");
}

SqliteDb::~SqliteDb() {
  sqlite3_close(db_);
}

void SqliteDb::exec(const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string reason = error ? error : sqlite3_errmsg(db_);
    sqlite3_free(error);
    throw std::runtime_error(fmt::format("{}: {}", path_, reason));
  }
}

int SqliteDb::changes() const {
  return sqlite3_changes(db_);
}

std::int64_t SqliteDb::last_insert_rowid() const {
  return sqlite3_last_insert_rowid(db_);
}

Statement::Statement(const SqliteDb& db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) {
    fail("prepare");
  }
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

void Statement::bind(int i, const std::string& text) {
  check(sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
}

void Statement::bind_static(int i, std::string_view text) {
  check(sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_STATIC));
}

void Statement::bind(int i, std::int64_t value) {
  check(sqlite3_bind_int64(stmt_, i, value));
}

void Statement::bind(int i, double value) {
  check(sqlite3_bind_double(stmt_, i, value));
}

void Statement::bind_null(int i) {
  check(sqlite3_bind_null(stmt_, i));
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc != SQLITE_DONE) {
    fail("step");
  }
  return false;
}

void Statement::reset() {
  sqlite3_reset(stmt_);
}

std::string Statement::text(int column) const {
  const auto* p = sqlite3_column_text(stmt_, column);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)))
           : std::string();
}

std::optional<std::int64_t> Statement::integer(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) {
    return std::nullopt;
  }
  return sqlite3_column_int64(stmt_, column);
}

std::optional<double> Statement::real(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) {
    return std::nullopt;
  }
  return sqlite3_column_double(stmt_, column);
}

void Statement::check(int rc) const {
  if (rc != SQLITE_OK) {
    fail("bind");
  }
}

void Statement::fail(const char* what) const {
  throw std::runtime_error(fmt::format("{}: SQLite {} failed: {}", db_.path(), what, sqlite3_errmsg(db_.handle())));
}

}  // namespace infergate::gateway
