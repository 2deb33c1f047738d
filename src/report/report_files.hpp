#pragma once
// Writing report files, with a message a user can act on when one fails.
#include <string>
#include <string_view>
#include <vector>

#include "report/document.hpp"

namespace infergate::report {

// Throws std::runtime_error naming the file.
void write_file(const std::string& path, std::string_view text);

// Where --markdown, --csv and --html go; an empty path is not written.
struct ReportFiles {
  std::string markdown;
  std::string csv;
  std::string html;
  [[nodiscard]] bool any() const { return !markdown.empty() || !csv.empty() || !html.empty(); }
};

void write_reports(const std::vector<RunDocument>& documents, const ReportFiles& files);

}  // namespace infergate::report
