#pragma once
// `--runs K`: the same measurement repeated, each headline figure given as its mean, coefficient of
// variation and 95% confidence interval (Student's t over the runs), so a difference can be told
// apart from run-to-run noise.
#include <boost/json/object.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "bench/summary.hpp"

namespace infergate::bench {

struct Spread {
  std::size_t count = 0;
  double mean = 0;
  double sd = 0;  // sample standard deviation (n - 1)
  double cv = 0;  // sd / mean; 0 when the mean is 0
  double ci95_low = 0;
  double ci95_high = 0;
  std::vector<double> values;
};

// The two-sided 95% quantile of Student's t with `df` degrees of freedom (df >= 1).
double t_quantile_95(std::size_t df);

// One value gives an interval of zero width (nothing is known of the spread).
Spread spread(std::vector<double> values);

// The headline figures of each run, by name, in a fixed order.
struct RepeatedFigures {
  std::vector<std::string> names;
  std::vector<Spread> spreads;
};

// `steady_rates[i]` is run i's steady-state token rate (the whole run's where it had none): output
// tokens/s, or with `prompts` (runs that generate nothing: embeddings) the input tokens/s they take
// in, whose figures are then named input_tokens_per_s and steady_input_tokens_per_s and which have
// no TPOT or ITL figures.
RepeatedFigures repeated_figures(const std::vector<BenchSummary>& runs, const std::vector<double>& steady_rates,
                                 bool prompts = false);

void print_repeated(std::FILE* out, const RepeatedFigures& figures);
// {"count", "figures": {name: {"mean", "sd", "cv", "ci95": [low, high], "values"}}}.
boost::json::object repeated_json(const RepeatedFigures& figures);

}  // namespace infergate::bench
