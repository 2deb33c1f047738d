#include "core/csv.hpp"

#include <stdexcept>

namespace infergate {

std::vector<CsvRecord> parse_csv(std::string_view text) {
  std::vector<CsvRecord> records;
  CsvRecord record{1, {}};
  std::string field;
  bool quoted = false;
  bool record_has_content = false;
  int line = 1;
  auto end_record = [&] {
    if (record_has_content) {
      record.fields.push_back(std::move(field));
      records.push_back(std::move(record));
    }
    record = CsvRecord{line, {}};
    field.clear();
    record_has_content = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        line += c == '\n' ? 1 : 0;
        field += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      record_has_content = true;
    } else if (c == ',') {
      record.fields.push_back(std::move(field));
      field.clear();
      record_has_content = true;
    } else if (c == '\n') {
      ++line;
      end_record();
    } else if (c != '\r') {
      field += c;
      record_has_content = true;
    }
  }
  if (quoted) {
    throw std::runtime_error("line " + std::to_string(record.line) + ": unterminated quoted field");
  }
  end_record();
  return records;
}

}  // namespace infergate
