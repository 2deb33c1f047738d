#pragma once
// Prometheus text exposition of the simulator's engines, with vLLM's metric names so dashboards
// and scrapers written for vLLM work unchanged.
#include <string>
#include <string_view>

#include "sim/engine.hpp"

namespace infergate::sim {

// Appends the samples of one served model; `first` adds the HELP/TYPE lines.
void append_engine_metrics(std::string& out, std::string_view model_name, const Engine& engine, bool first);

}  // namespace infergate::sim
