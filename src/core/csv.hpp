#pragma once
// RFC 4180 CSV: fields separated by commas, optionally quoted, "" for a quote inside quotes.
#include <string>
#include <string_view>
#include <vector>

namespace infergate {

struct CsvRecord {
  int line = 0;  // 1-based line the record starts on, for error messages
  std::vector<std::string> fields;
};

// Skips empty lines. Throws std::runtime_error naming the line of an unterminated quote.
std::vector<CsvRecord> parse_csv(std::string_view text);

}  // namespace infergate
