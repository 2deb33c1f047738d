#pragma once
// Writing report files (as core/output_file writes any result file).
#include <string>
#include <string_view>
#include <vector>

#include "report/document.hpp"

namespace infergate::report {

// Where --markdown, --csv and --html go; an empty path is not written, "-" is standard output.
struct ReportFiles {
  std::string markdown;
  std::string csv;
  std::string html;
  [[nodiscard]] bool any() const { return !markdown.empty() || !csv.empty() || !html.empty(); }
};

void write_reports(const std::vector<RunDocument>& documents, const ReportFiles& files);

}  // namespace infergate::report
