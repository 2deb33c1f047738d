#pragma once
// GET /admin/usage's query string: key_id, model, since and until, each optional. A parameter the
// report does not know is refused rather than ignored: `?start_date=...` answered with every day
// would pass for a filtered report.
#include <string>
#include <string_view>
#include <variant>

#include "gateway/ledger.hpp"

namespace infergate::gateway {

// The filter `query` (the text after '?', percent-encoded) asks for, or what is wrong with it.
// Days are UTC, YYYY-MM-DD, both ends included.
std::variant<UsageFilter, std::string> parse_usage_query(std::string_view query);

}  // namespace infergate::gateway
