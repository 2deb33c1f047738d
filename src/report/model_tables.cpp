#include "report/model_tables.hpp"

#include <fmt/format.h>

#include <vector>

#include "report/svg_chart.hpp"
#include "report/tables.hpp"

namespace infergate::report {

namespace {

// The table's columns and each model's cells, as text, for either format to lay out.
struct ModelRows {
  std::vector<std::string> heads;
  std::vector<std::vector<std::string>> rows;
};

ModelRows model_rows(const RunDocument& d) {
  ModelRows out;
  const bool prompts = bench::prompt_only(d.by_model, &bench::ModelSummaries::value_type::second);
  out.heads = {"model",         "completed",    "failed", "req/s", prompts ? "input tok/s" : "output tok/s",
               "TTFT p50 (ms)", "TTFT p99 (ms)"};
  if (!prompts) {
    out.heads.insert(out.heads.end(), {"TPOT p50 (ms)", "TPOT p99 (ms)"});
  }
  for (const auto& [name, s] : d.by_model) {
    std::vector<std::string> row{name,
                                 fmt::format("{}", s.completed),
                                 fmt::format("{}", s.failed),
                                 format_number(s.requests_per_s),
                                 format_number(bench::measured_rate(s, prompts)),
                                 format_number(s.ttft_ms.p50),
                                 format_number(s.ttft_ms.p99)};
    if (!prompts) {
      row.insert(row.end(), {format_number(s.tpot_ms.p50), format_number(s.tpot_ms.p99)});
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

// Which of the document's loads the models' figures are, beyond a single run's.
std::string caption(const RunDocument& d) {
  return d.kind == RunDocument::Kind::single ? "" : ", " + d.summary_of;
}

}  // namespace

std::string markdown_model_table(const RunDocument& document) {
  if (document.by_model.empty()) {
    return "";
  }
  const ModelRows table = model_rows(document);
  std::string md = fmt::format("\n### {}: by model{}\n\n|", document.label, caption(document));
  std::string rule = "|";
  for (const std::string& head : table.heads) {
    md += fmt::format(" {} |", head);
    rule += "---|";
  }
  md += "\n" + rule + "\n";
  for (const auto& row : table.rows) {
    md += "|";
    for (const std::string& cell : row) {
      md += fmt::format(" {} |", markdown_cell(cell));
    }
    md += "\n";
  }
  return md;
}

std::string html_model_table(const RunDocument& document) {
  if (document.by_model.empty()) {
    return "";
  }
  const ModelRows table = model_rows(document);
  std::string html =
      fmt::format("<h2>{}: by model{}</h2><table><tr>", escape_xml(document.label), escape_xml(caption(document)));
  for (const std::string& head : table.heads) {
    html += fmt::format("<th>{}</th>", escape_xml(head));
  }
  html += "</tr>";
  for (const auto& row : table.rows) {
    html += "<tr>";
    for (const std::string& cell : row) {
      html += fmt::format("<td>{}</td>", escape_xml(cell));
    }
    html += "</tr>";
  }
  return html + "</table>";
}

}  // namespace infergate::report
