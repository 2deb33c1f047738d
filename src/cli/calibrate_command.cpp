#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "cli/commands.hpp"
#include "sim/calibration.hpp"

namespace infergate::cli {

namespace {

struct CalibrateArgs {
  std::string data;
  std::vector<std::string> catalogs;
  bool fit = false;
  bool check = false;
};

void print_report(const sim::CalibrationReport& report) {
  std::size_t id_width = 3;
  for (const auto& r : report.rows) {
    id_width = std::max(id_width, r.row->id.size());
  }
  fmt::print("{:<{}} {:<30} {:<13} {:>14} {:>14} {:>8}\n", "row", id_width, "profile", "scenario", "measured",
             "predicted", "error");
  for (const auto& r : report.rows) {
    const auto& row = *r.row;
    const std::string profile = fmt::format("{}:{}@{}{}", row.model, row.precision, row.hardware,
                                            row.devices > 1 ? fmt::format("x{}", row.devices) : "");
    fmt::print("{:<{}} {:<30} {:<13} {:>8.5g} {:<5} {:>8.5g} {:<5} {:>+7.1f}%\n", row.id, id_width, profile,
               sim::to_string(row.scenario), row.value, row.unit, r.predicted, row.unit, (r.ratio - 1) * 100);
  }
  fmt::print("\nerror = predicted / measured - 1 (prefill rows compare the time to first token)\n");
  for (const auto& [cls, s] : report.classes) {
    fmt::print("{:<16} {:>2} rows   median |error| {:>5.1f}%   worst {:.2f}x\n", sim::to_string(cls), s.rows,
               s.median_abs_error * 100, s.worst_factor);
  }
}

int run_calibrate(const CalibrateArgs& args) {
  sim::Catalog catalog = sim::Catalog::builtin();
  for (const auto& path : args.catalogs) {
    catalog.add_file(path);
  }
  const auto rows = args.data.empty() ? sim::builtin_calibration() : sim::load_calibration(args.data);
  if (args.fit) {
    const auto families = sim::fit_families(rows, catalog);
    const std::string yaml = sim::families_yaml(families);
    fmt::print("# fitted efficiency factors (paste into catalog.yaml or a --catalog file)\n{}\n", yaml);
    // Applied through the YAML just printed, so the table below shows exactly what pasting those
    // rounded figures into a catalog gives.
    catalog.add_yaml(yaml, "fitted factors");
  }
  const auto report = sim::evaluate(rows, catalog);
  print_report(report);
  const bool ok = sim::meets_bounds(report);
  fmt::print("bounds (median |error| under {:.0f}%, no row off by more than {:.0f}x): {}\n",
             sim::kMedianErrorBound * 100, sim::kWorstFactorBound, ok ? "met" : "NOT met");
  return args.check && !ok ? 1 : 0;
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  auto* cmd = app.add_subcommand("calibrate", "Compare the simulator with published measurements; fit its factors");
  cmd->add_option("--data", args->data, "Measurements CSV (default: calibration/measurements.csv, built in)");
  cmd->add_option("--catalog", args->catalogs, "YAML file of extra hardware, models and families, repeatable");
  cmd->add_flag("--fit", args->fit, "Fit each hardware family's efficiency factors to the data and print them");
  cmd->add_flag("--check", args->check, "Exit 1 when the error bounds are not met");
  cmd->callback([args] {
    const int code = run_calibrate(*args);
    if (code != 0) {
      throw CLI::RuntimeError(code);
    }
  });
}

}  // namespace infergate::cli
