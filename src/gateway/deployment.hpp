#pragma once
// A deployment: one upstream serving one model (provider + upstream model name), with the live
// counters the balancer and the circuit breaker read. Shared by every I/O thread.
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "gateway/outlier_detector.hpp"
#include "http/url.hpp"

namespace infergate::gateway {

// The OpenAI endpoints the gateway routes by model, under /v1.
inline constexpr std::array<std::string_view, 4> kInferenceEndpoints{"/chat/completions", "/completions", "/embeddings",
                                                                     "/responses"};

// The index of `endpoint` in kInferenceEndpoints; nullopt for any other.
[[nodiscard]] inline std::optional<std::size_t> inference_endpoint(std::string_view endpoint) {
  for (std::size_t i = 0; i < kInferenceEndpoints.size(); ++i) {
    if (kInferenceEndpoints[i] == endpoint) {
      return i;
    }
  }
  return std::nullopt;
}

struct Deployment {
  std::string provider;  // a label for logs and metrics: bounded, never a key
  http::Url base;        // ends in /v1
  // base.path followed by each of kInferenceEndpoints, built once with `base`, so that a request
  // builds no target string of its own.
  std::array<std::string, kInferenceEndpoints.size()> targets;
  std::string upstream_model;  // the name the upstream knows the model by
  std::string authorization;   // "Bearer <the provider's API key>", or empty; never logged
  int weight = 1;
  std::chrono::milliseconds connect_timeout{5'000};
  std::chrono::milliseconds first_byte_timeout{60'000};  // request sent -> response head
  std::chrono::milliseconds idle_timeout{60'000};        // between body reads
  std::chrono::milliseconds total_timeout{600'000};      // arrival -> last byte
  bool tls_verify = true;
  // UpstreamPool::origin_of(base, tls_verify): the idle connections this deployment may use.
  std::size_t origin = 0;

  std::atomic<int> in_flight{0};
  std::atomic<std::int64_t> ttft_ewma_us{0};  // 0 until the first measurement
  // Until when (CLOCK_MONOTONIC ns) the provider said this deployment's rate limit is spent:
  // nothing is sent to it before then.
  std::atomic<std::int64_t> limited_until_ns{0};
  OutlierState outlier;

  // The upstream request target for one of kInferenceEndpoints; any other endpoint is a bug in
  // the caller, never another endpoint's target.
  [[nodiscard]] std::string_view target(std::string_view endpoint) const {
    const auto i = inference_endpoint(endpoint);
    if (!i) {
      throw std::invalid_argument("not an inference endpoint: " + std::string(endpoint));
    }
    return targets[*i];
  }

  // Folds one time-to-first-token into the moving average (weight 0.2 on the new sample).
  void record_ttft(std::int64_t ttft_us) {
    const std::int64_t old = ttft_ewma_us.load(std::memory_order_relaxed);
    ttft_ewma_us.store(old == 0 ? ttft_us : (old * 4 + ttft_us) / 5, std::memory_order_relaxed);
  }
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
