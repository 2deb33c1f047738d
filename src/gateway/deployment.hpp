#pragma once
// A deployment: one upstream serving one model (provider + upstream model name), with the live
// counters the balancer and the circuit breaker read. Shared by every I/O thread.
#include <atomic>
#include <string>

#include "gateway/outlier_detector.hpp"
#include "http/url.hpp"

namespace infergate::gateway {

struct Deployment {
  std::string provider;        // a label for logs and metrics: bounded, never a key
  http::Url base;              // ends in /v1
  std::string upstream_model;  // the name the upstream knows the model by
  std::string api_key;         // sent upstream as a bearer token; never logged
  std::atomic<int> in_flight{0};
  OutlierState outlier;
};

// Counts a request against its deployment for as long as it lives.
class InFlightGuard {
 public:
  explicit InFlightGuard(Deployment& d) : deployment_(&d) {
    deployment_->in_flight.fetch_add(1, std::memory_order_relaxed);
  }
  ~InFlightGuard() { deployment_->in_flight.fetch_sub(1, std::memory_order_relaxed); }
  InFlightGuard(const InFlightGuard&) = delete;
  InFlightGuard& operator=(const InFlightGuard&) = delete;

 private:
  Deployment* deployment_;
};

}  // namespace infergate::gateway
