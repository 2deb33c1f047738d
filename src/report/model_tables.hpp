#pragma once
// A mixed-model run's figures one model at a time (RunDocument::by_model) as a report's table:
// each model's requests, rate and latency percentiles, under the run's own figures.
#include <string>

#include "report/document.hpp"

namespace infergate::report {

// Empty for a run of one model.
std::string markdown_model_table(const RunDocument& document);
std::string html_model_table(const RunDocument& document);

}  // namespace infergate::report
