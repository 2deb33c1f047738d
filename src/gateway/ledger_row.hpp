#pragma once
// One finished request of a known key, as the usage ledger records it.
#include <cstdint>
#include <optional>
#include <string>

namespace infergate::gateway {

struct LedgerRow {
  std::int64_t ts_ms = 0;  // Unix ms when the request ended
  std::string request_id;
  std::string key_id;
  std::string model;  // the public model asked for
  std::string upstream_model;
  std::string provider;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::string token_source = "none";  // "usage" (the upstream's), "estimate" or "none"
  double cost_usd = 0;
  int status = 0;
  std::optional<double> ttft_ms;
  double duration_ms = 0;

  bool operator==(const LedgerRow&) const = default;
};

}  // namespace infergate::gateway
