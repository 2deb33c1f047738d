#pragma once
// The machine-readable result of a run: schema "infergate.bench/1" (docs/bench-json.md).
#include <boost/json/object.hpp>

#include <string>

#include "bench/summary.hpp"

namespace infergate::bench {

boost::json::object stat_json(const Stat& stat);
boost::json::object summary_json(const BenchSummary& summary);

// {"schema": "infergate.bench/1", "config": config, "summary": ...} plus the fields of `extra`
// (a goodput, a sweep); throws std::runtime_error when the file cannot be written.
void write_summary_json(const std::string& path, const boost::json::object& config, const BenchSummary* summary,
                        const boost::json::object& extra = {});

}  // namespace infergate::bench
