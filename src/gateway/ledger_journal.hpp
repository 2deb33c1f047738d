#pragma once
// The usage journal: every ledger row as one JSON line in a file beside the key database,
// appended once per batch. It is the ledger's per-request record (read it with jq or any JSON
// lines reader); SQLite keeps the per-day sums and how many of the journal's bytes they count.
// Appends happen only inside a SQLite write transaction, which is what serialises replicas that
// share the files; a batch whose transaction does not commit is cut off again, or, where the
// file refuses the cut, its whole lines are left for the next batch to count.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>
#include "gateway/ledger_row.hpp"

namespace infergate::gateway {

// `row` as one JSON line, newline included, in this thread's scratch memory (text_writer.hpp):
// valid until the thread formats another line.
std::string_view journal_line(const LedgerRow& row);

// The row a journal line (without its newline) holds, its texts viewing `storage` (the parsed
// line, which must stay unchanged while the row is used); nullopt when the line is not a row.
std::optional<LedgerRow> parse_journal_line(std::string_view line, boost::json::value& storage);

// The journal file, open for one batch. Every method throws std::runtime_error naming the file
// and the system's reason.
class JournalFile {
 public:
  // Opens `path` for appending, creating it when missing.
  explicit JournalFile(std::string path);
  ~JournalFile();
  JournalFile(const JournalFile&) = delete;
  JournalFile& operator=(const JournalFile&) = delete;

  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] std::int64_t size() const;
  // The bytes in [from, to).
  [[nodiscard]] std::string read(std::int64_t from, std::int64_t to) const;
  // Writes all of `bytes` at the end.
  void append(std::string_view bytes);
  void truncate(std::int64_t size);

 private:
  [[noreturn]] void fail(const char* what) const;

  std::string path_;
  int fd_ = -1;
};

}  // namespace infergate::gateway
