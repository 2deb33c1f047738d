#pragma once
// `--html FILE`: one self-contained page (inline CSS and SVG, nothing fetched) with the comparison
// table, throughput against load and latency against throughput with the knee marked, TTFT and
// TPOT CDFs, the ITL distribution, in-flight requests and output rate over time, each run's
// configuration and any sweep table.
#include <string>
#include <vector>

#include "report/document.hpp"

namespace infergate::report {

std::string html_report(const std::vector<RunDocument>& documents);

}  // namespace infergate::report
