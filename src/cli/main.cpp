#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/parse_hint.hpp"
#include "core/log.hpp"

int main(int argc, char** argv) {
  infergate::cli::remember_command_line(argc, argv);
  CLI::App app{"infergate: measure, route and predict LLM inference traffic"};
  app.require_subcommand(1);
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")->capture_default_str();
  app.parse_complete_callback([&] { infergate::setup_logging(log_level); });
  infergate::cli::add_sim_command(app);
  infergate::cli::add_bench_command(app);
  infergate::cli::add_demo_command(app);
  infergate::cli::add_serve_command(app);
  infergate::cli::add_roofline_command(app);
  infergate::cli::add_calibrate_command(app);
  infergate::cli::add_doctor_command(app);
  infergate::cli::add_keys_command(app);
  infergate::cli::add_report_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    for (const std::string& hint : code != 0 ? infergate::cli::parse_hints(app) : std::vector<std::string>{}) {
      std::fprintf(stderr, "infergate: %s\n", hint.c_str());
    }
    return code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "infergate: %s\n", e.what());
    return 2;
  }
  return 0;
}
