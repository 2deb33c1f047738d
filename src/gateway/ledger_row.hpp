#pragma once
// One finished request of a known key, as the usage ledger records it. The texts are views into
// the request's own state: the ledger copies the row as it is handed over and keeps no view.
#include <cstdint>
#include <optional>
#include <string_view>

namespace infergate::gateway {

struct LedgerRow {
  std::int64_t ts_ms = 0;  // Unix ms when the request ended
  std::string_view request_id;
  std::string_view key_id;
  std::string_view model;  // the public model asked for
  std::string_view upstream_model;
  std::string_view provider;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::string_view token_source = "none";  // "usage" (the upstream's), "estimate" or "none"
  double cost_usd = 0;
  int status = 0;
  std::optional<double> ttft_ms;
  double duration_ms = 0;

  bool operator==(const LedgerRow&) const = default;
};

}  // namespace infergate::gateway
