#include "gateway/route_table.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_future.hpp>

#include <stdexcept>

#include "gateway/upstream_pool.hpp"
#include "http/fetch.hpp"
#include "openai/api_base.hpp"
#include "openai/api_error.hpp"
#include "openai/model_list.hpp"

namespace infergate::gateway {

namespace net = boost::asio;

std::unique_ptr<Deployment> make_deployment(const ProviderConfig& provider, const std::string& upstream_model,
                                            int weight) {
  auto d = std::make_unique<Deployment>();
  d->provider = provider.name;
  d->base = provider.base;
  for (std::size_t i = 0; i < kInferenceEndpoints.size(); ++i) {
    d->targets[i] = d->base.path + std::string(kInferenceEndpoints[i]);
  }
  d->upstream_model = upstream_model;
  if (!provider.api_key.empty()) {
    d->authorization = "Bearer " + provider.api_key;
  }
  d->weight = weight;
  d->connect_timeout = provider.connect_timeout;
  d->first_byte_timeout = provider.first_byte_timeout;
  d->idle_timeout = provider.idle_timeout;
  d->total_timeout = provider.total_timeout;
  d->tls_verify = provider.tls_verify;
  d->origin = UpstreamPool::origin_of(d->base, d->tls_verify);
  return d;
}

const ModelRoute* RouteTable::find(std::string_view model) const {
  auto it = routes_.find(model);
  return it == routes_.end() ? nullptr : &it->second;
}

std::vector<std::string> RouteTable::model_names() const {
  std::vector<std::string> names;
  for (const auto& [name, route] : routes_) {
    names.push_back(name);
  }
  return names;
}

ModelRoute& RouteTable::add(const std::string& public_name, std::unique_ptr<Deployment> deployment,
                            std::string_view strategy) {
  auto [it, inserted] = routes_.try_emplace(public_name);
  if (inserted) {
    it->second.public_name = public_name;
    it->second.balancer = make_balancer(strategy);
  }
  it->second.deployments.push_back(deployment.get());
  deployments_.push_back(std::move(deployment));
  return it->second;
}

std::shared_ptr<const RouteTable> RouteTable::from_config(const GatewayConfig& config) {
  auto table = std::make_shared<RouteTable>();
  for (const ModelConfig& model : config.models) {
    for (const DeploymentConfig& dc : model.deployments) {
      auto d = make_deployment(config.providers.at(dc.provider), dc.model, dc.weight);
      ModelRoute& route = table->add(model.name, std::move(d), model.strategy);
      route.retry = model.retry;
      route.fallbacks = model.fallbacks;
      route.price = model.price;
    }
  }
  return table;
}

namespace {

// The models one upstream lists, or an explanation of why it could not say.
net::awaitable<std::vector<std::string>> list_upstream_models(const http::Url& base, const std::string& api_key,
                                                              std::chrono::milliseconds timeout) {
  std::vector<http::Header> headers{{"Accept", "application/json"}};
  const std::string authorization = "Bearer " + api_key;
  if (!api_key.empty()) {
    headers.push_back({"Authorization", authorization});
  }
  auto response =
      co_await http::fetch(co_await net::this_coro::executor, base, "GET", base.path + "/models", headers, "", timeout);
  if (!response) {
    throw std::runtime_error(response.error().ec.message());
  }
  if (response->head.status != 200) {
    throw std::runtime_error(
        fmt::format("HTTP {}: {}", response->head.status, openai::error_message_from_body(response->body)));
  }
  auto models = openai::parse_model_list(response->body);
  if (!models) {
    throw std::runtime_error("the reply is not a model list");
  }
  co_return *models;
}

}  // namespace

std::shared_ptr<const RouteTable> discover_routes(const std::vector<UpstreamSpec>& upstreams, std::string_view strategy,
                                                  const RetryPolicy& retry, const ProviderConfig& settings) {
  auto table = std::make_shared<RouteTable>();
  std::string problems;
  for (const auto& upstream : upstreams) {
    const http::Url base = openai::parse_api_base(upstream.url);
    net::io_context io{1};
    auto future =
        net::co_spawn(io, list_upstream_models(base, upstream.api_key, settings.connect_timeout), net::use_future);
    io.run();
    ProviderConfig provider = settings;
    provider.name = base.authority();
    provider.base = base;
    provider.api_key = upstream.api_key;
    try {
      for (const auto& model : future.get()) {
        table->add(model, make_deployment(provider, model, 1), strategy).retry = retry;
      }
    } catch (const std::exception& e) {
      spdlog::warn("upstream {} skipped: GET /v1/models failed: {}", base.to_string(), e.what());
      problems += fmt::format("\n  {}: {}", base.to_string(), e.what());
    }
  }
  if (table->model_names().empty()) {
    throw std::runtime_error("no upstream listed any model:" +
                             (problems.empty() ? std::string(" (none given)") : problems));
  }
  return table;
}

}  // namespace infergate::gateway
