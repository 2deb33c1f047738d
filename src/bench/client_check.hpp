#pragma once
// Whether the benchmark client, not the server, limited a run. A client that cannot keep up sends
// late (scheduling lag) or spends its time processing instead of waiting for the server (event-loop
// busy share); either way the figures describe the client, so the run says so.
#include <optional>
#include <string>

namespace infergate::bench {

// What the load runner measured of its own thread.
struct ClientLoad {
  double wall_s = 0;
  std::optional<double> loop_busy;  // busy-polling: share of the time spent running handlers
  double cpu = 0;                   // thread CPU time over wall time (1.0 when busy-polling)
};

struct ClientCheck {
  ClientLoad load;
  double lag_p99_ms = 0;
  bool bound = false;
  std::string reason;  // why it counts as bound; empty otherwise
};

constexpr double kClientBusyLimit = 0.8;
constexpr double kClientLagLimitMs = 1.0;

// Busy share (or, when sleeping between events, CPU share) above 80%, or p99 scheduling lag above
// 1 ms, marks the client as the bottleneck.
ClientCheck check_client(const ClientLoad& load, double lag_p99_ms);

}  // namespace infergate::bench
