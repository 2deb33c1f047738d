#pragma once
// A mixed-model run (model_mix.hpp) seen one model at a time: each model's figures over its own
// requests, as a gateway's users ask which of its models is slow.
#include <boost/json/object.hpp>

#include <cstdio>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bench/slo.hpp"
#include "bench/summary.hpp"

namespace infergate::bench {

using ModelSummaries = std::vector<std::pair<std::string, BenchSummary>>;

// Each of `models`' summary over the records that asked for it (RequestRecord::model), in the
// order of `models`; empty for a run of one model. `more`: as summarize_run's.
ModelSummaries summarize_by_model(const std::vector<RequestRecord>& records, std::span<const std::string> models,
                                  std::span<const double> more = {});

// Each model's goodput against `slos` over its own requests, in the order of `models`; empty
// without SLOs or for a run of one model.
std::vector<Goodput> goodput_by_model(const std::vector<RequestRecord>& records, const ModelSummaries& models,
                                      const std::vector<Slo>& slos);

// One line per model under the run's table: its requests, rate and latency percentiles, and with
// `goodputs` (one a model) its good requests/s and whether it met the SLOs, and if not, how not.
void print_model_breakdown(std::FILE* out, const ModelSummaries& models, std::span<const Goodput> goodputs = {});

// {"MODEL": summary, ...} (summary_json.hpp), each with its "goodput" (goodput_json) when
// `goodputs` holds one a model; and back, throwing std::runtime_error as summary_from_json does.
boost::json::object model_breakdown_json(const ModelSummaries& models, std::span<const Goodput> goodputs = {},
                                         const std::vector<Slo>& slos = {});
ModelSummaries model_breakdown_from_json(const boost::json::value& value);

}  // namespace infergate::bench
