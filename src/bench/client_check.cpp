#include "bench/client_check.hpp"

#include <fmt/format.h>

namespace infergate::bench {

ClientCheck check_client(const ClientLoad& load, double lag_p99_ms) {
  ClientCheck check{load, lag_p99_ms, false, {}};
  const double busy = load.loop_busy.value_or(load.cpu);
  const char* what = load.loop_busy ? "its event loop was busy" : "it used CPU";
  if (busy > kClientBusyLimit) {
    check.bound = true;
    check.reason = fmt::format("{} {:.0f}% of the run (limit {:.0f}%)", what, busy * 100, kClientBusyLimit * 100);
  }
  if (lag_p99_ms > kClientLagLimitMs) {
    check.reason += fmt::format("{}requests went out late: p99 scheduling lag {:.2f} ms (limit {:g} ms)",
                                check.bound ? "; " : "", lag_p99_ms, kClientLagLimitMs);
    check.bound = true;
  }
  return check;
}

}  // namespace infergate::bench
