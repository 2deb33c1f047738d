#pragma once
// A saved `infergate bench` result (schema infergate.bench/1, docs/bench-json.md) read back for
// reports, comparisons and merges: a single run, repeated runs, a sweep or a max-load search.
#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

#include "bench/model_breakdown.hpp"
#include "bench/summary.hpp"

namespace infergate::report {

// A steady state's token rates (bench/timeline.hpp); the mean over the runs that had one, for
// repeated runs.
struct SteadyRates {
  double output_tokens_per_s = 0;
  double input_tokens_per_s = 0;
};

// With --slo, the good requests/s; with a price, the cost's headline (bench/cost.hpp) in USD per
// million output tokens (input for embeddings).
struct Extras {
  std::optional<double> goodput_requests_per_s;
  std::optional<double> usd_per_million_tokens;
};

struct Level {
  double level = 0;
  bench::BenchSummary summary;
  std::optional<SteadyRates> steady;
  std::optional<bool> slo_met;
  Extras extras;
  bench::ModelSummaries by_model;  // a mixed-model load's, one model at a time
};

// The server's gauges as --server-metrics read them, on the run's time axis.
struct ServerSeries {
  std::vector<double> t_s;
  std::vector<std::optional<double>> waiting;
  std::vector<std::optional<double>> running;
  std::vector<std::optional<double>> kv_cache_usage;  // 0 to 1
};

struct Series {
  std::vector<double> t_s;
  std::vector<double> in_flight;
  std::vector<double> output_tokens_per_s;
  std::vector<double> input_tokens_per_s;  // empty in results saved before the series counted them
  std::vector<std::optional<double>> ttft_ms;
  std::optional<ServerSeries> server;
};

// A headline figure's 95% interval as the document supports it (repeated runs, per-second rates,
// or order statistics of a percentile); absent when nothing gives one.
struct Interval {
  double low = 0;
  double high = 0;
};

struct RunDocument {
  std::string label;  // --label, the target's name, or the file name
  std::string path;
  boost::json::object raw;
  boost::json::object config;
  enum class Kind { single, runs, sweep, max_load };
  Kind kind = Kind::single;
  // The run (single), the runs pooled (runs), or the knee's level (sweep; the highest level
  // without a knee, the highest passing rate for a max-load search): what tables and CDFs show.
  bench::BenchSummary summary;
  std::optional<SteadyRates> steady;
  std::string summary_of;  // which part of the document `summary` is, for captions
  std::vector<Level> levels;
  std::string level_kind;  // "concurrency" or "rate"
  std::optional<std::size_t> knee;
  std::string knee_rule;
  std::optional<Series> series;
  // Headline figure name -> interval: from "runs" when repeated.
  boost::json::object runs_figures;
  // Those of the run, of its repeats (their means), or of the level `summary` is.
  Extras extras;
  // A mixed-model run's figures one model at a time: the run's, its repeats' pooled, or those of
  // the level `summary` is.
  bench::ModelSummaries by_model;
};

// Throws std::runtime_error naming the file and what is wrong with it. A side-by-side result
// (bench --target) holds one document per target; any other holds one.
std::vector<RunDocument> read_documents(const std::string& path);
RunDocument document_from_json(const boost::json::value& value, const std::string& label);

// The label a document gets without --label: config.label, else the file name without .json.
std::string default_label(const boost::json::object& config, const std::string& path);

}  // namespace infergate::report
