#pragma once
// The machine-readable result of a run: schema "infergate.bench/1" (docs/bench-json.md).
#include <boost/json/object.hpp>

#include <string>

#include "bench/summary.hpp"

namespace infergate::bench {

boost::json::object stat_json(const Stat& stat);
boost::json::object summary_json(const BenchSummary& summary);

// Reads back what summary_json wrote (the client check is left out). Throws std::runtime_error
// naming the field that is missing or of the wrong type.
Stat stat_from_json(const boost::json::value& value);
BenchSummary summary_from_json(const boost::json::value& value);

// {"schema": "infergate.bench/1", "config": config, "summary": ...} plus the fields of `extra` (a
// goodput, a sweep, a time series).
boost::json::object summary_document(const boost::json::object& config, const BenchSummary* summary,
                                     const boost::json::object& extra = {});

}  // namespace infergate::bench
