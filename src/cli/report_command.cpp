#include <fmt/format.h>
#include <boost/json/serialize.hpp>

#include <memory>

#include "cli/commands.hpp"
#include "core/output_file.hpp"
#include "report/document.hpp"
#include "report/figures.hpp"
#include "report/merge.hpp"
#include "report/report_files.hpp"
#include "report/tables.hpp"

namespace infergate::cli {

namespace {

struct ReportArgs {
  std::vector<std::string> files;
  std::vector<std::string> labels;
  std::string merge;
  std::string markdown;
  std::string csv;
  std::string html;
};

void run_report(const ReportArgs& args) {
  prepare_outputs({{"--merge", args.merge}, {"--markdown", args.markdown}, {"--csv", args.csv}, {"--html", args.html}});
  std::vector<report::RunDocument> documents;
  for (const auto& file : args.files) {
    for (auto& d : report::read_documents(file)) {
      documents.push_back(std::move(d));
    }
  }
  if (!args.labels.empty()) {
    if (args.labels.size() != documents.size()) {
      throw std::runtime_error(fmt::format("--label gave {} names for {} results; give one per result",
                                           args.labels.size(), documents.size()));
    }
    for (std::size_t i = 0; i < documents.size(); ++i) {
      documents[i].label = args.labels[i];
    }
  }
  if (!args.merge.empty()) {
    const boost::json::object merged = report::merge_documents(documents);
    write_output(args.merge, boost::json::serialize(merged) + "\n");
    report::RunDocument whole = report::document_from_json(merged, documents.front().label + " (merged)");
    whole.path = args.merge;
    fmt::print("merged {} runs into {}\n", documents.size(),
               args.merge == kStandardOutput ? std::string("standard output") : args.merge);
    documents = {std::move(whole)};
  }
  report::print_comparison(stdout, report::compare(documents));
  report::write_reports(documents, {args.markdown, args.csv, args.html});
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto a = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand(
      "report", "Compare saved bench results (bench --json files), merge workers' runs, write HTML, Markdown or CSV");
  cmd->add_option("files", a->files, "infergate bench --json files")->required()->check(CLI::ExistingFile);
  cmd->add_option("--label", a->labels, "A name per file, in order (default: the run's --label or the file name)")
      ->delimiter(',');
  cmd->add_option("--merge", a->merge,
                  "Pool single runs made at the same time (bench --workers, or several machines) into one result "
                  "file: exact percentiles from merged histograms, rates added");
  cmd->add_option("--markdown", a->markdown, "Write the comparison, configuration and sweeps as Markdown");
  cmd->add_option("--csv", a->csv, "Write one row per measured load (a run or a sweep level)");
  cmd->add_option("--html", a->html,
                  "Write one self-contained page: the table, charts (load, latency, CDFs, ITL, time series), "
                  "configuration");
  cmd->callback([a] { run_report(*a); });
}

}  // namespace infergate::cli
