#include "gateway/gateway_metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <mutex>

namespace infergate::gateway {

namespace {

constexpr std::array<std::string_view, 5> kStatusClassNames{"2xx", "3xx", "4xx", "5xx", "client_closed"};

std::size_t status_class(int status) {
  if (status == 499) {
    return 4;
  }
  if (status >= 500) {
    return 3;
  }
  if (status >= 400) {
    return 2;
  }
  return status >= 300 ? 1 : 0;
}

prometheus::Histogram::BucketBoundaries latency_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120};
}

prometheus::Histogram::BucketBoundaries token_time_buckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3, 0.5, 1};
}

prometheus::Histogram::BucketBoundaries overhead_buckets() {
  return {0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01};
}

}  // namespace

GatewayMetrics::GatewayMetrics(std::shared_ptr<prometheus::Registry> registry, std::shared_ptr<MetricTallies> tallies,
                               const RouteTable& routes, const Ledger* ledger, const AccessLog* access_log,
                               const http::ServerStats* server_stats)
    : registry_(std::move(registry)),
      tallies_(std::move(tallies)),
      ledger_(ledger),
      access_log_(access_log),
      server_stats_(server_stats) {
  auto histogram = [this](prometheus::Family<prometheus::Histogram>& family, const prometheus::Labels& labels,
                          const prometheus::Histogram::BucketBoundaries& buckets) {
    return &tallies_->histogram(family.Add(labels, buckets), buckets);
  };
  auto counter = [this](prometheus::Family<prometheus::Counter>& family, const prometheus::Labels& labels) {
    return &tallies_->counter(family.Add(labels));
  };
  auto& requests = prometheus::BuildCounter()
                       .Name("infergate_requests_total")
                       .Help("Requests answered, by public model, provider and status class")
                       .Register(*registry_);
  auto& in_flight = prometheus::BuildGauge()
                        .Name("infergate_upstream_in_flight")
                        .Help("Requests in flight to each deployment")
                        .Register(*registry_);
  auto& duration = prometheus::BuildHistogram()
                       .Name("infergate_request_duration_seconds")
                       .Help("Arrival to last byte")
                       .Register(*registry_);
  auto& ttft = prometheus::BuildHistogram()
                   .Name("infergate_time_to_first_token_seconds")
                   .Help("Arrival to the first generated text, as the gateway saw it")
                   .Register(*registry_);
  auto& tpot = prometheus::BuildHistogram()
                   .Name("infergate_time_per_output_token_seconds")
                   .Help("(last token - first token) / (output tokens - 1)")
                   .Register(*registry_);
  auto& tokens = prometheus::BuildCounter()
                     .Name("infergate_tokens_total")
                     .Help("Tokens by direction, from the upstream's usage")
                     .Register(*registry_);
  auto& retries =
      prometheus::BuildCounter().Name("infergate_retries_total").Help("Attempts beyond the first").Register(*registry_);
  auto& fallbacks = prometheus::BuildCounter()
                        .Name("infergate_fallbacks_total")
                        .Help("Requests that moved on to a fallback model, by the model first asked for")
                        .Register(*registry_);
  auto& ejections = prometheus::BuildCounter()
                        .Name("infergate_ejections_total")
                        .Help("Times a deployment was ejected by outlier detection")
                        .Register(*registry_);
  auto& provider_limited = prometheus::BuildCounter()
                               .Name("infergate_provider_rate_limited_total")
                               .Help("Requests kept from a deployment whose provider said its rate limit was spent")
                               .Register(*registry_);
  auto& overhead = prometheus::BuildHistogram()
                       .Name("infergate_gateway_overhead_seconds")
                       .Help("Time spent inside the gateway before the first byte went to the client")
                       .Register(*registry_);
  overhead_ = histogram(overhead, {}, overhead_buckets());
  state_errors_ = &prometheus::BuildCounter()
                       .Name("infergate_rate_limit_state_errors_total")
                       .Help("Admissions Redis did not answer (each one failed open or closed as configured)")
                       .Register(*registry_)
                       .Add({});
  auto& out_of_resources = prometheus::BuildCounter()
                               .Name("infergate_out_of_resources_total")
                               .Help(
                                   "Connections the gateway could not open for want of descriptors or memory, by "
                                   "operation: accept (tried again every 100 ms) or upstream_connect (a 503)")
                               .Register(*registry_);
  connects_out_of_resources_ = &out_of_resources.Add({{"operation", "upstream_connect"}});
  if (server_stats_ != nullptr) {
    accepts_out_of_resources_ = &out_of_resources.Add({{"operation", "accept"}});
  }
  if (ledger_ != nullptr) {
    ledger_written_ = &prometheus::BuildCounter()
                           .Name("infergate_ledger_rows_written_total")
                           .Help("Usage ledger rows in the journal and the per-day sums")
                           .Register(*registry_)
                           .Add({});
    ledger_queued_ = &prometheus::BuildGauge()
                          .Name("infergate_ledger_rows_queued")
                          .Help("Usage ledger rows of finished requests not written yet: what a SIGKILL would lose")
                          .Register(*registry_)
                          .Add({});
    ledger_failures_ = &prometheus::BuildCounter()
                            .Name("infergate_ledger_write_failures_total")
                            .Help("Usage ledger flushes that failed (their rows stay queued for the next)")
                            .Register(*registry_)
                            .Add({});
  }
  if (access_log_ != nullptr) {
    access_log_lost_ = &prometheus::BuildCounter()
                            .Name("infergate_access_log_lines_lost_total")
                            .Help("Access log lines dropped because the file did not take them (a full disk)")
                            .Register(*registry_)
                            .Add({});
  }
  for (std::size_t c = 0; c < kStatusClasses; ++c) {
    unrouted_[c] =
        counter(requests, {{"model", ""}, {"provider", ""}, {"status_class", std::string(kStatusClassNames[c])}});
  }
  for (const std::string& name : routes.model_names()) {
    const ModelRoute* route = routes.find(name);
    ModelSeries& m = models_[route];
    m.duration = histogram(duration, {{"model", name}}, latency_buckets());
    m.ttft = histogram(ttft, {{"model", name}}, latency_buckets());
    m.tpot = histogram(tpot, {{"model", name}}, token_time_buckets());
    m.tokens_in = counter(tokens, {{"model", name}, {"direction", "in"}});
    m.tokens_out = counter(tokens, {{"model", name}, {"direction", "out"}});
    m.retries = &retries.Add({{"model", name}});
    m.fallbacks = &fallbacks.Add({{"model", name}});
    for (const Deployment* d : route->deployments) {
      DeploymentSeries& s = deployments_[d];
      for (std::size_t c = 0; c < kStatusClasses; ++c) {
        s.requests[c] =
            counter(requests,
                    {{"model", name}, {"provider", d->provider}, {"status_class", std::string(kStatusClassNames[c])}});
      }
      s.in_flight = &in_flight.Add({{"model", name}, {"provider", d->provider}});
      s.ejections = &ejections.Add({{"model", name}, {"provider", d->provider}});
      s.provider_limited = &provider_limited.Add({{"model", name}, {"provider", d->provider}});
    }
  }
}

GatewayMetrics::~GatewayMetrics() = default;

void GatewayMetrics::observe(const RequestObservation& o) const {
  const std::size_t c = status_class(o.status);
  auto d = o.deployment ? deployments_.find(o.deployment) : deployments_.end();
  (d != deployments_.end() ? d->second.requests[c] : unrouted_[c])->add(1);
  if (o.overhead_s >= 0) {
    overhead_->observe(o.overhead_s);
  }
  auto m = o.route ? models_.find(o.route) : models_.end();
  if (m == models_.end()) {
    return;
  }
  m->second.duration->observe(o.duration_s);
  if (o.ttft_s >= 0) {
    m->second.ttft->observe(o.ttft_s);
  }
  if (o.tpot_s >= 0) {
    m->second.tpot->observe(o.tpot_s);
  }
  m->second.tokens_in->add(static_cast<std::uint64_t>(std::max<std::int64_t>(0, o.prompt_tokens)));
  m->second.tokens_out->add(static_cast<std::uint64_t>(std::max<std::int64_t>(0, o.completion_tokens)));
  if (o.attempts > 1) {
    m->second.retries->Increment(o.attempts - 1);
  }
  if (o.fallbacks > 0) {
    m->second.fallbacks->Increment(o.fallbacks);
  }
}

void GatewayMetrics::ejected(const Deployment& d) const {
  if (auto it = deployments_.find(&d); it != deployments_.end()) {
    it->second.ejections->Increment();
  }
}

void GatewayMetrics::provider_limited(const Deployment& d) const {
  if (auto it = deployments_.find(&d); it != deployments_.end()) {
    it->second.provider_limited->Increment();
  }
}

void GatewayMetrics::rate_limit_state_error() const {
  state_errors_->Increment();
}

void GatewayMetrics::upstream_connect_out_of_resources() const {
  connects_out_of_resources_->Increment();
}

std::string GatewayMetrics::scrape() const {
  tallies_->flush();
  for (const auto& [deployment, series] : deployments_) {
    series.in_flight->Set(deployment->in_flight.load(std::memory_order_relaxed));
  }
  // A counter only goes up: it is brought up to its source's own count. Two scrapes at once (two
  // I/O threads, or snapshots on both sides of a reload) must not both add the same rows.
  static std::mutex syncing;
  const std::lock_guard lock(syncing);
  if (ledger_ != nullptr) {
    const LedgerStats stats = ledger_->stats();
    ledger_written_->Increment(static_cast<double>(stats.rows_written) - ledger_written_->Value());
    ledger_failures_->Increment(static_cast<double>(stats.write_failures) - ledger_failures_->Value());
    ledger_queued_->Set(static_cast<double>(stats.rows_queued));
  }
  if (access_log_ != nullptr) {
    access_log_lost_->Increment(static_cast<double>(access_log_->lines_lost()) - access_log_lost_->Value());
  }
  if (server_stats_ != nullptr) {
    const auto accepts = server_stats_->accepts_out_of_resources.load(std::memory_order_relaxed);
    accepts_out_of_resources_->Increment(static_cast<double>(accepts) - accepts_out_of_resources_->Value());
  }
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace infergate::gateway
