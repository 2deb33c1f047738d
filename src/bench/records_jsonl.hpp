#pragma once
// --records FILE.jsonl: one line per request (docs/bench-json.md).
#include <span>
#include <string>
#include <vector>

#include "bench/request_record.hpp"

namespace infergate::bench {

// `models`: the workload's model names, which a record's `model` indexes (left out when empty).
std::string record_json(const RequestRecord& record, std::span<const std::string> models = {});

// Written as core/output_file writes; throws std::runtime_error when it cannot be.
void write_records_jsonl(const std::string& path, const std::vector<RequestRecord>& records,
                         std::span<const std::string> models = {});

}  // namespace infergate::bench
