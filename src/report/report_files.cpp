#include "report/report_files.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

#include "report/html_report.hpp"
#include "report/tables.hpp"

namespace infergate::report {

void write_file(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    throw std::runtime_error(fmt::format("cannot write '{}'", path));
  }
  out << text;
  if (!out.flush()) {
    throw std::runtime_error(fmt::format("writing '{}' failed", path));
  }
}

void write_reports(const std::vector<RunDocument>& documents, const ReportFiles& files) {
  if (!files.markdown.empty()) {
    write_file(files.markdown, markdown_report(documents));
  }
  if (!files.csv.empty()) {
    write_file(files.csv, csv_report(documents));
  }
  if (!files.html.empty()) {
    write_file(files.html, html_report(documents));
  }
}

}  // namespace infergate::report
