#pragma once
// The human-readable result of a run.
#include <cstdio>
#include <string>

#include "bench/summary.hpp"

namespace infergate::bench {

void print_summary_table(std::FILE* out, const BenchSummary& summary, const std::string& title);

}  // namespace infergate::bench
