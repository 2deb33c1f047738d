#pragma once
// Each subcommand registers its options and its action on the application.
#include <CLI/CLI.hpp>

namespace infergate::cli {

// Kept for `bench --workers`, which starts copies of this command line.
void remember_command_line(int argc, char** argv);

void add_sim_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_demo_command(CLI::App& app);
void add_serve_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_roofline_command(CLI::App& app);
void add_doctor_command(CLI::App& app);
void add_keys_command(CLI::App& app);
void add_report_command(CLI::App& app);

}  // namespace infergate::cli
