#include "report/report_files.hpp"

#include "core/output_file.hpp"
#include "report/html_report.hpp"
#include "report/tables.hpp"

namespace infergate::report {

void write_reports(const std::vector<RunDocument>& documents, const ReportFiles& files) {
  if (!files.markdown.empty()) {
    write_output(files.markdown, markdown_report(documents));
  }
  if (!files.csv.empty()) {
    write_output(files.csv, csv_report(documents));
  }
  if (!files.html.empty()) {
    write_output(files.html, html_report(documents));
  }
}

}  // namespace infergate::report
