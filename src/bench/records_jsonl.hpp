#pragma once
// --records FILE.jsonl: one line per request (docs/bench-json.md).
#include <string>
#include <vector>

#include "bench/request_record.hpp"

namespace infergate::bench {

std::string record_json(const RequestRecord& record);

// Written as core/output_file writes; throws std::runtime_error when it cannot be.
void write_records_jsonl(const std::string& path, const std::vector<RequestRecord>& records);

}  // namespace infergate::bench
