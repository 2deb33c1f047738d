#pragma once
// Ledger rows as the I/O threads hand them over: each row's numbers and texts copied into one
// buffer, a few dozen instructions, so that formatting them as journal lines (a thousand or more
// per row) is the ledger thread's work, done a batch at a time, and not the request's.
#include <cstddef>
#include <memory>

#include "gateway/ledger_row.hpp"

namespace infergate::gateway {

class PackedRows {
 public:
  PackedRows() = default;
  PackedRows(const PackedRows&) = delete;
  PackedRows& operator=(const PackedRows&) = delete;
  PackedRows(PackedRows&& other) noexcept;
  PackedRows& operator=(PackedRows&& other) noexcept;
  ~PackedRows() = default;

  void append(const LedgerRow& row);

  // Reads the row at `at` into `row`, its texts viewing this buffer (valid until the next
  // append or clear), and moves `at` past it; false at the end.
  bool next(std::size_t& at, LedgerRow& row) const;

  [[nodiscard]] std::size_t rows() const { return rows_; }
  [[nodiscard]] bool empty() const { return rows_ == 0; }
  // Empty, its buffer's capacity kept.
  void clear();

 private:
  // Where `more` bytes past the end can be written.
  char* room(std::size_t more);

  std::unique_ptr<char[]> bytes_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  std::size_t rows_ = 0;
};

}  // namespace infergate::gateway
