#pragma once
// A sweep as people and tools read it: one row per load level with the knee marked, and the
// rule that placed it; goodput against the SLOs where they were given.
#include <boost/json/object.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bench/slo.hpp"
#include "bench/sweep.hpp"

namespace infergate::bench {

// `prompts`: the run generated nothing (embeddings); its good rate is the input it took in.
void print_goodput(std::FILE* out, const Goodput& goodput, const std::vector<Slo>& slos, bool prompts = false);
// A mixed-model load's levels follow, one table a model, each with its own knee.
void print_sweep_table(std::FILE* out, const SweepSpec& spec, const std::vector<SweepPoint>& points,
                       const std::optional<Knee>& knee, const KneeRule& rule);
// The rates --find-max-load measured (sorted), the answer marked; `kind` speed: the replay speeds.
void print_max_load(std::FILE* out, const std::vector<SweepPoint>& points, std::optional<double> passing,
                    std::optional<double> failing, SweepSpec::Kind kind = SweepSpec::Kind::rate);

// {"kind", "points": [{"level", "summary", "goodput", "steady_state", "cost", "by_model", "server"}],
// "knee": {...} or null, "knee_rule"}, and for a mixed-model load "knee_by_model": {"MODEL": {...}
// or null}, each model's own.
// {"kind": "rate", "rate": highest passing or null, "failing_rate": lowest failing or null,
// "points": [...]}; for replay speeds "kind": "speed" and "speed", "failing_speed".
boost::json::object max_load_json(const std::vector<SweepPoint>& points, std::optional<double> passing,
                                  std::optional<double> failing, const std::vector<Slo>& slos, const Pricing& pricing,
                                  SweepSpec::Kind kind = SweepSpec::Kind::rate);
boost::json::object sweep_json(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                               const std::optional<Knee>& knee, const KneeRule& rule, const std::vector<Slo>& slos,
                               const Pricing& pricing);

}  // namespace infergate::bench
