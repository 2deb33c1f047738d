#pragma once
// Every Prometheus series the gateway exports, declared in one place (Envoy's habit). Labels are
// bounded: public model names and providers come from the route table, status is a class; never a
// key, a prompt or a client-supplied model name. Series are created up front so the request path
// only increments (no label lookup); what every request counts goes through tallies
// (metric_tally.hpp) that each scrape adds to the series.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "gateway/access_log.hpp"
#include "gateway/ledger.hpp"
#include "gateway/metric_tally.hpp"
#include "gateway/route_table.hpp"
#include "http/server_stats.hpp"

namespace prometheus {
class Counter;
class Gauge;
class Histogram;
class Registry;
}  // namespace prometheus

namespace infergate::gateway {

// What the proxy reports about one finished request.
struct RequestObservation {
  const ModelRoute* route = nullptr;       // nullptr: rejected before routing
  const Deployment* deployment = nullptr;  // the last one tried, if any
  int status = 0;                          // 499 when the client went away
  int attempts = 0;
  int fallbacks = 0;
  double duration_s = 0;
  double overhead_s = -1;  // < 0 when no upstream answered
  double ttft_s = -1;
  double tpot_s = -1;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
};

class GatewayMetrics {
 public:
  // Series for every route and deployment of `routes`, in `registry` (shared across reloads, so a
  // series that survives a reload keeps counting, as do its `tallies`), and for the usage ledger
  // and the access log when there are. `server_stats` are the listeners' own counts.
  GatewayMetrics(std::shared_ptr<prometheus::Registry> registry, std::shared_ptr<MetricTallies> tallies,
                 const RouteTable& routes, const Ledger* ledger = nullptr, const AccessLog* access_log = nullptr,
                 const http::ServerStats* server_stats = nullptr);
  ~GatewayMetrics();
  GatewayMetrics(const GatewayMetrics&) = delete;
  GatewayMetrics& operator=(const GatewayMetrics&) = delete;

  void observe(const RequestObservation& o) const;
  void ejected(const Deployment& d) const;
  // A request not sent to `d` because its provider said the limit was spent.
  void provider_limited(const Deployment& d) const;
  // Redis (shared rate-limit state) did not answer a request's admission.
  void rate_limit_state_error() const;
  // The gateway had no descriptor (or memory) for a connection to an upstream: its own limit.
  void upstream_connect_out_of_resources() const;
  // Prometheus text exposition (version 0.0.4), with in-flight gauges and the ledger's and access
  // log's figures read at this moment.
  [[nodiscard]] std::string scrape() const;

 private:
  static constexpr std::size_t kStatusClasses = 5;  // 2xx 3xx 4xx 5xx client_closed
  struct DeploymentSeries {
    std::array<CounterTally*, kStatusClasses> requests{};
    prometheus::Gauge* in_flight = nullptr;
    prometheus::Counter* ejections = nullptr;
    prometheus::Counter* provider_limited = nullptr;
  };
  struct ModelSeries {
    HistogramTally* duration = nullptr;
    HistogramTally* ttft = nullptr;
    HistogramTally* tpot = nullptr;
    CounterTally* tokens_in = nullptr;
    CounterTally* tokens_out = nullptr;
    prometheus::Counter* retries = nullptr;
    prometheus::Counter* fallbacks = nullptr;
  };

  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<MetricTallies> tallies_;  // after the registry, whose series they add to
  std::unordered_map<const Deployment*, DeploymentSeries> deployments_;
  std::unordered_map<const ModelRoute*, ModelSeries> models_;
  std::array<CounterTally*, kStatusClasses> unrouted_{};
  HistogramTally* overhead_ = nullptr;
  prometheus::Counter* state_errors_ = nullptr;
  const Ledger* ledger_;
  prometheus::Counter* ledger_written_ = nullptr;
  prometheus::Gauge* ledger_queued_ = nullptr;
  prometheus::Counter* ledger_failures_ = nullptr;
  const AccessLog* access_log_;
  prometheus::Counter* access_log_lost_ = nullptr;
  const http::ServerStats* server_stats_;
  prometheus::Counter* accepts_out_of_resources_ = nullptr;
  prometheus::Counter* connects_out_of_resources_ = nullptr;
};

}  // namespace infergate::gateway
