#pragma once
// The headline figures of a saved run, each with the 95% interval the run itself supports, and the
// comparison of several runs figure by figure.
//
// Intervals: repeated runs (--runs K) give each figure as the mean over the runs, with its
// Student's t interval (not the pooled requests' percentile, which that interval need not hold).
// A single run gives latency percentiles a distribution-free interval from order statistics (the
// values at ranks n p -/+ 1.96 sqrt(n p (1 - p)) of its histogram), and its output rate the mean
// -/+ t sd / sqrt(n) of the per-second rates inside its steady state. Two runs differ on a figure
// when their intervals do not overlap.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "report/document.hpp"

namespace infergate::report {

struct Figure {
  std::string name;   // "output_tokens_per_s", "ttft_ms_p99", ...
  std::string title;  // "output tok/s", "TTFT p99 (ms)"
  bool higher_is_better = false;
  double value = 0;
  std::optional<Interval> interval;
};

// `more`: percentiles beyond p50 and p99 (--percentiles) that TTFT, TPOT and E2E are given at too.
// `prompts`: the runs generated nothing (embeddings): the rate is input tokens/s, with no TPOT or ITL.
std::vector<Figure> headline_figures(const RunDocument& document, std::span<const double> more = {},
                                     bool prompts = false);

// The --percentiles every document holds, ascending: those a comparison can set side by side.
std::vector<double> shared_percentiles(const std::vector<RunDocument>& documents);

struct Comparison {
  std::vector<std::string> labels;           // one per document
  std::vector<std::vector<Figure>> figures;  // [document][figure], the same figures in each
  // [document][figure] for documents after the first: value over the first's.
  std::vector<std::vector<std::optional<double>>> ratio;
  // [document][figure]: both intervals known and disjoint.
  std::vector<std::vector<bool>> differs;
  // What makes a document's figures not what they seem, one sentence each: answers that were not
  // the output length asked, where exact lengths were asked.
  std::vector<std::string> cautions;
};

Comparison compare(const std::vector<RunDocument>& documents);

}  // namespace infergate::report
