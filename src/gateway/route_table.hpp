#pragma once
// The router's immutable snapshot: public model name -> the deployments serving it and how to
// balance over them. Requests hold the snapshot they started with.
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/balancer.hpp"
#include "gateway/config.hpp"
#include "gateway/deployment.hpp"
#include "gateway/retry_policy.hpp"

namespace infergate::gateway {

struct ModelRoute {
  std::string public_name;
  std::vector<Deployment*> deployments;
  std::unique_ptr<Balancer> balancer;
  RetryPolicy retry;
  std::vector<std::string> fallbacks;  // public names tried in order once this model gives up
  std::optional<Price> price;
};

class RouteTable {
 public:
  [[nodiscard]] const ModelRoute* find(std::string_view model) const;
  [[nodiscard]] std::vector<std::string> model_names() const;
  [[nodiscard]] const std::vector<std::unique_ptr<Deployment>>& deployments() const { return deployments_; }

  // Adds a deployment of `public_name` (creating the route with `strategy` on first use).
  ModelRoute& add(const std::string& public_name, std::unique_ptr<Deployment> deployment, std::string_view strategy);

  // Every provider's settings copied onto the deployments that use it.
  static std::shared_ptr<const RouteTable> from_config(const GatewayConfig& config);

 private:
  std::vector<std::unique_ptr<Deployment>> deployments_;
  std::map<std::string, ModelRoute, std::less<>> routes_;
};

// A deployment of `upstream_model` on `provider`, with the provider's key, timeouts and TLS options.
std::unique_ptr<Deployment> make_deployment(const ProviderConfig& provider, const std::string& upstream_model,
                                            int weight);

struct UpstreamSpec {
  std::string url;  // base URL as given; /v1 is added when missing
  std::string api_key;
};

// Quick start without a config file: asks each upstream for GET /v1/models; each model becomes a
// public name served by every upstream that lists it. Upstreams that do not answer are skipped
// with a warning; throws std::runtime_error when none answers.
// `settings` gives every discovered deployment its timeouts and TLS options.
std::shared_ptr<const RouteTable> discover_routes(const std::vector<UpstreamSpec>& upstreams, std::string_view strategy,
                                                  const RetryPolicy& retry, const ProviderConfig& settings);

}  // namespace infergate::gateway
