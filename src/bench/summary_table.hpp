#pragma once
// The human-readable result of a run.
#include <cstdio>
#include <string>

#include "bench/summary.hpp"

namespace infergate::bench {

// `lengths_forced`: the requests asked for exact output lengths (ignore_eos, min_tokens), so that
// answers of other lengths are a warning.
void print_summary_table(std::FILE* out, const BenchSummary& summary, const std::string& title, bool lengths_forced);

// The failures by class, each with its examples: the lines that end the table.
void print_failures(std::FILE* out, const BenchSummary& summary);

}  // namespace infergate::bench
