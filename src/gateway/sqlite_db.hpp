#pragma once
// A small RAII layer over SQLite's C API for the key store and the usage ledger: one connection
// in WAL mode (readers never wait on the writer; processes on one machine share the file), and
// prepared statements that throw std::runtime_error naming the file and SQLite's reason.
#include <cstdint>
#include <optional>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace infergate::gateway {

class SqliteDb {
 public:
  // Opens or creates `path`; `what` names it in errors ("the key database").
  SqliteDb(const std::string& path, const std::string& what);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  void exec(const char* sql);
  [[nodiscard]] sqlite3* handle() const { return db_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  // Rows the last INSERT, UPDATE or DELETE changed.
  [[nodiscard]] int changes() const;
  [[nodiscard]] std::int64_t last_insert_rowid() const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Statement {
 public:
  Statement(const SqliteDb& db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int i, const std::string& text);
  // Text SQLite reads in place, without a copy: it must stay unchanged until the statement is
  // reset.
  void bind_static(int i, std::string_view text);
  void bind(int i, std::int64_t value);
  void bind(int i, double value);
  void bind_null(int i);
  template <class T>
  void bind(int i, const std::optional<T>& value) {
    if (value) {
      bind(i, *value);
    } else {
      bind_null(i);
    }
  }

  // True while rows come.
  bool step();
  // Makes the statement ready to run again. Bindings are kept: the next run binds anew what changes.
  void reset();

  [[nodiscard]] std::string text(int column) const;
  [[nodiscard]] std::optional<std::int64_t> integer(int column) const;
  [[nodiscard]] std::optional<double> real(int column) const;

 private:
  [[noreturn]] void fail(const char* what) const;
  void check(int rc) const;

  const SqliteDb& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace infergate::gateway
