#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <boost/json/serialize.hpp>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/interrupt.hpp"
#include "bench/model_breakdown.hpp"
#include "bench/server_metrics.hpp"
#include "bench/summary_table.hpp"
#include "bench/sweep_report.hpp"
#include "bench/timeline_report.hpp"
#include "cli/bench_plan.hpp"
#include "cli/commands.hpp"
#include "core/clock.hpp"
#include "core/output_file.hpp"
#include "report/document.hpp"
#include "report/merge.hpp"
#include "report/report_files.hpp"

extern char** environ;

namespace infergate::cli {

namespace {

std::vector<std::string>& command_line() {
  static std::vector<std::string> words;
  return words;
}

// Options whose value belongs to the parent: the workers write their results where it says, and
// aim at the endpoint it names.
// The parent reads --server-metrics once for all of them: N workers scraping would ask N times.
constexpr std::string_view kParentOnly[] = {"--workers", "--json",     "--records", "--html",          "--markdown",
                                            "--csv",     "--base-url", "--label",   "--server-metrics"};

bool parent_only(std::string_view word) {
  for (std::string_view option : kParentOnly) {
    if (word == option || (word.starts_with(option) && word.size() > option.size() && word[option.size()] == '=')) {
      return true;
    }
  }
  return false;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Worker {
  pid_t pid = 0;
  std::string json;
  std::string records;
  std::string errors;
};

Worker spawn_worker(const std::string& directory, int index, int count, const std::string& base_url,
                    bool with_records) {
  Worker w;
  w.json = fmt::format("{}/worker{}.json", directory, index);
  w.records = with_records ? fmt::format("{}/worker{}.jsonl", directory, index) : "";
  w.errors = fmt::format("{}/worker{}.err", directory, index);
  std::vector<std::string> words{"/proc/self/exe"};
  const auto& original = command_line();
  for (std::size_t i = 1; i < original.size(); ++i) {
    if (parent_only(original[i])) {
      i += original[i].find('=') == std::string::npos ? 1 : 0;  // and its value
      continue;
    }
    words.push_back(original[i]);
  }
  for (const std::string& extra : {std::string("--worker-index"), std::to_string(index), std::string("--worker-count"),
                                   std::to_string(count), std::string("--worker-parent"), std::to_string(::getpid()),
                                   std::string("--base-url"), base_url, std::string("--json"), w.json}) {
    words.push_back(extra);
  }
  if (with_records) {
    words.emplace_back("--records");
    words.push_back(w.records);
  }
  std::vector<char*> argv;
  argv.reserve(words.size() + 1);
  for (auto& word : words) {
    argv.push_back(word.data());
  }
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, w.errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  // Nothing else of the parent's: a worker holding the embedded simulator's listening socket would
  // keep its connections queued there for ever once the parent is gone.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  // The worker starts with SIGINT and SIGTERM blocked, until its handlers are in place
  // (bench::stop_on_signals unblocks them): a stop that comes while it starts waits for them
  // instead of killing it with nothing written.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  const sigset_t stops = bench::stop_signal_set();
  posix_spawnattr_setsigmask(&attributes, &stops);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  const int failed = posix_spawn(&w.pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (failed != 0) {
    throw bench::BenchError(fmt::format("could not start worker {}: {}", index, std::strerror(failed)));
  }
  return w;
}

// Waits for worker `k` to end and returns its wait status. A stop asked of this process (a
// signal sent to it alone) is passed on to every worker as SIGTERM, once (`passed_on`), which a
// worker takes as a stop however often it comes; a Ctrl-C at a terminal reaches them all anyway.
int wait_for_worker(const std::vector<Worker>& workers, std::size_t k, bool& passed_on) {
  for (;;) {
    int status = 0;
    const pid_t ended = ::waitpid(workers[k].pid, &status, WNOHANG);
    if (ended == workers[k].pid) {
      return status;
    }
    if (ended < 0 && errno != EINTR) {
      throw bench::BenchError(fmt::format("could not wait for worker {}: {}", k, std::strerror(errno)));
    }
    if (bench::stop_signal() != 0 && !passed_on) {
      passed_on = true;
      for (const Worker& w : workers) {
        ::kill(w.pid, SIGTERM);
      }
    }
    ::usleep(20'000);
  }
}

}  // namespace

void remember_command_line(int argc, char** argv) {
  command_line().assign(argv, argv + argc);
}

void end_with_parent(int parent) {
  // The kernel kills this process when its parent ends from now on; a parent already gone is
  // seen in getppid().
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || (parent > 0 && ::getppid() != parent)) {
    std::_Exit(1);
  }
}

void run_workers(const BenchArgs& args, const std::string& base_url, const std::vector<bench::Slo>& slos) {
  const auto directory = std::filesystem::temp_directory_path() / fmt::format("infergate-workers-{}", ::getpid());
  std::filesystem::create_directories(directory);
  struct Cleanup {
    std::filesystem::path path;
    ~Cleanup() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } cleanup{directory};
  fmt::print("infergate bench: {} worker processes at {}\n", args.workers, base_url);
  // The scraper's samples are on the monotonic clock, the workers' starts on the wall clock: the
  // two read together here put the samples on the merged run's time axis.
  std::optional<bench::ServerMetricsScraper> scraper;
  const std::int64_t monotonic_at_start = monotonic_ns();
  const double wall_ms_at_start = static_cast<double>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  if (!args.server_metrics.empty()) {
    scraper.emplace(http::parse_url(args.server_metrics), std::chrono::seconds(1), make_target(args, base_url, "").tls);
  }
  std::vector<Worker> workers;
  workers.reserve(static_cast<std::size_t>(args.workers));
  for (int k = 0; k < args.workers; ++k) {
    workers.push_back(spawn_worker(directory.string(), k, args.workers, base_url, !args.records.empty()));
  }
  std::string failures;
  int stopped = 0;  // a signal that stopped the workers: they wrote what they measured before it
  bool passed_on = false;
  for (std::size_t k = 0; k < workers.size(); ++k) {
    const int status = wait_for_worker(workers, k, passed_on);
    if (WIFEXITED(status) && WEXITSTATUS(status) > 128 && bench::stop_signal() != 0) {
      stopped = bench::stop_signal();  // this process's, whatever the workers were passed
      continue;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::string err = read_text(workers[k].errors);
      failures += fmt::format("worker {} failed ({}): {}\n", k,
                              WIFEXITED(status) ? fmt::format("exit {}", WEXITSTATUS(status)) : "killed",
                              err.substr(err.size() > 2000 ? err.size() - 2000 : 0));
    }
  }
  if (!failures.empty()) {
    throw bench::BenchError(failures);
  }
  std::vector<report::RunDocument> parts;
  parts.reserve(workers.size());
  for (const auto& w : workers) {
    for (auto& d : report::read_documents(w.json)) {
      parts.push_back(std::move(d));
    }
  }
  std::vector<bench::ServerSample> server;
  std::optional<std::string> server_error;
  if (scraper) {
    server = scraper->finish();
    server_error = scraper->error();
  }
  boost::json::object merged = report::merge_documents(parts);
  if (scraper && merged.contains("timeseries")) {
    // The merged series starts when the first worker did (report/merge.hpp).
    std::optional<double> first_ms;
    for (const auto& part : parts) {
      if (const auto* at = part.config.if_contains("started_at_ms"); at && at->is_number()) {
        first_ms = std::min(first_ms.value_or(at->to_number<double>()), at->to_number<double>());
      }
    }
    const double origin_ms = first_ms.value_or(wall_ms_at_start);
    const auto origin_ns = monotonic_at_start + static_cast<std::int64_t>((origin_ms - wall_ms_at_start) * 1e6);
    merged["timeseries"].as_object()["server"] = bench::server_series_json(server, origin_ns);
  }
  auto& config = merged["config"].as_object();
  config["workers"] = args.workers;
  config["label"] = args.label.empty() ? parts.front().label : args.label;
  const std::string label(config["label"].as_string());
  report::RunDocument whole = report::document_from_json(merged, label);
  bench::print_summary_table(
      stdout, whole.summary,
      fmt::format("merged from {} workers (latency percentiles from their pooled histograms)", args.workers),
      !args.no_ignore_eos);
  if (scraper) {
    bench::print_server_series(stdout, server, server_error);
  }
  if (const auto* by_model = merged.if_contains("by_model")) {
    const bench::ModelSummaries models = bench::model_breakdown_from_json(*by_model);
    std::vector<bench::Goodput> goodputs;  // each model's, when the merge pooled every one
    for (const auto& [name, summary] : models) {
      const auto* own = by_model->as_object().if_contains(name);
      const auto* goodput = own != nullptr && own->is_object() ? own->get_object().if_contains("goodput") : nullptr;
      if (goodput == nullptr || !goodput->is_object()) {
        goodputs.clear();
        break;
      }
      goodputs.push_back(bench::goodput_from_json(goodput->get_object()));
    }
    bench::print_model_breakdown(stdout, models, goodputs);
  }
  if (const auto* cost = merged.if_contains("cost")) {
    bench::print_cost(stdout, bench::pricing_from_cost_json(cost->as_object()),
                      bench::cost_from_json(cost->as_object()));
  }
  if (const auto* goodput = merged.if_contains("goodput")) {
    bench::print_goodput(stdout, bench::goodput_from_json(goodput->as_object()), slos,
                         bench::prompt_only(whole.summary));
  }
  const std::vector<report::RunDocument> documents{whole};
  if (!args.json.empty()) {
    write_output(args.json, boost::json::serialize(merged) + "\n");
  }
  if (!args.records.empty()) {
    OutputFile all(args.records);
    for (const auto& w : workers) {
      all.append(read_text(w.records));
    }
    all.commit();
  }
  report::write_reports(documents, {args.markdown, args.csv, args.html});
  if (stopped != 0) {
    say_interrupted(stopped, "the requests each worker finished before it");
    end_interrupted(stopped);
  }
  if (whole.summary.completed == 0 && whole.summary.failed > 0) {
    throw CLI::RuntimeError(1);
  }
}

}  // namespace infergate::cli
