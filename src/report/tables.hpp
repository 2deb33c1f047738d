#pragma once
// The report as text: the comparison printed to a terminal, Markdown for pasting into issues, and
// CSV for spreadsheets (one row per measured load: a run, or a sweep's level).
#include <cstdio>
#include <string>
#include <vector>

#include "report/document.hpp"
#include "report/figures.hpp"

namespace infergate::report {

// 6871.2, 12.35, 0.954: enough digits to tell runs apart, no more.
std::string format_number(double value);

// A Markdown table cell's text with its '|' escaped, which would otherwise end the cell (a stop
// string may hold one).
std::string markdown_cell(const std::string& text);

void print_comparison(std::FILE* out, const Comparison& comparison);

std::string markdown_report(const std::vector<RunDocument>& documents);

// One row per measured load; a mixed-model load's is followed by one row a model, over its own
// requests. Columns: label, kind, level, model (empty on the load's own row), completed, failed,
// requests_per_s, output_tokens_per_s, steady_output_tokens_per_s, input_tokens_per_s,
// steady_input_tokens_per_s (empty without a steady state, and on a model's row), then
// mean/p50/p90/p95/p99/max of ttft_ms, tpot_ms, itl_ms and e2e_ms (each with the --percentiles any
// row holds before its max: "ttft_ms_p99.9", empty on a row without it), then
// goodput_requests_per_s (with --slo) and usd_per_million_tokens (with a price; the cost's
// headline), empty without them and on a model's row, then knee (1 on the knee's rows). Fields are
// quoted when they hold a comma or a quote.
std::string csv_report(const std::vector<RunDocument>& documents);

}  // namespace infergate::report
