#pragma once
// The human-readable result of a run.
#include <cstdio>
#include <string>

#include "bench/summary.hpp"

namespace infergate::bench {

void print_summary_table(std::FILE* out, const BenchSummary& summary, const std::string& title);

// The failures by class, each with its examples: the lines that end the table.
void print_failures(std::FILE* out, const BenchSummary& summary);

}  // namespace infergate::bench
