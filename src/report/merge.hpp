#pragma once
// Pooling summaries exactly. Latency percentiles come from the merged histograms (percentiles of
// the pooled samples, within the histograms' 1%), never from averaged percentiles.
#include <boost/json/object.hpp>

#include <string>
#include <vector>

#include "bench/model_breakdown.hpp"
#include "bench/summary.hpp"
#include "report/document.hpp"

namespace infergate::report {

enum class Pooling {
  concurrent,  // workers that ran at the same time: their rates add, the window is the longest
  sequential,  // runs one after another: rates are totals over the summed durations
};

// The pooled statistics carry the percentiles beyond the standard four that the first part's do
// (the parts of one run were summarized alike).
bench::BenchSummary merge_summaries(const std::vector<bench::BenchSummary>& parts, Pooling pooling);

// A mixed-model run's parts (bench/model_breakdown.hpp): each model's summaries pooled, by name,
// in the order the names first appear.
bench::ModelSummaries merge_model_summaries(const std::vector<bench::ModelSummaries>& parts, Pooling pooling);

// `infergate report --merge`: one document from the single-run documents of workers that ran the
// same workload at the same time (on one machine or many). Its summary pools theirs; its time
// series adds theirs second by second, aligned on each run's start time. Throws std::runtime_error
// when a document is not a single run or the workloads differ.
boost::json::object merge_documents(const std::vector<RunDocument>& documents);

}  // namespace infergate::report
