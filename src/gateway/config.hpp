#pragma once
// gateway.yaml: providers, public models and how each is served. Parsing is control plane: it
// collects every problem (file:line:column, field, what is wrong) and throws them all at once.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/yaml_error.hpp"
#include "gateway/retry_policy.hpp"
#include "http/server_limits.hpp"
#include "http/url.hpp"

namespace infergate::gateway {

struct ProviderConfig {
  std::string name;
  http::Url base;       // ends in /v1
  std::string api_key;  // after ${ENV} substitution; never logged or written back
  std::chrono::milliseconds connect_timeout{5'000};
  std::chrono::milliseconds first_byte_timeout{60'000};
  std::chrono::milliseconds idle_timeout{60'000};
  std::chrono::milliseconds total_timeout{600'000};
  bool tls_verify = true;
};

struct DeploymentConfig {
  std::string provider;
  std::string model;  // the upstream's name for it
  int weight = 1;
};

// USD per million tokens, for the usage ledger's cost column and key budgets.
struct Price {
  double input = 0;
  double output = 0;
};

struct ModelConfig {
  std::string name;  // the public name clients ask for
  std::optional<Price> price;
  std::string strategy = "least_in_flight";
  std::vector<DeploymentConfig> deployments;
  RetryPolicy retry;
  std::vector<std::string> fallbacks;  // public model names, tried in order
};

struct ServerConfig {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;
  int threads = 0;
  std::string access_log;
  std::chrono::milliseconds drain{30'000};  // SIGTERM: how long requests in flight may take to finish
  std::chrono::microseconds busy_poll{5};   // the longest an I/O thread waits before it sleeps (0: never)
  // The longest a write to a client may wait for it to read.
  std::chrono::milliseconds send_timeout = http::ServerLimits{}.send_timeout;
  bool operator==(const ServerConfig&) const = default;
};

// Virtual keys and their limits. Without this section the gateway asks callers for no key.
struct AuthConfig {
  std::string master_key;                        // guards /admin; after ${ENV} substitution, never logged
  std::string keys_db;                           // SQLite file of the keys
  std::chrono::milliseconds refresh{1'000};      // how soon a change made elsewhere takes effect here
  std::string state = "local";                   // where rate-limit counters live: local or redis://host:port
  bool fail_open = true;                         // Redis unreachable: admit without limits (or refuse, 503)
  std::chrono::milliseconds state_timeout{100};  // the longest wait for Redis before failing open or closed
  bool state_leases = false;                     // Redis: admit from leases of the limits, not a round trip each
  std::chrono::milliseconds ledger_flush{500};   // the most usage rows a SIGKILL can lose
  std::string ledger_journal;                    // the usage journal's file (default: keys_db + "-ledger.jsonl")
  bool operator==(const AuthConfig&) const = default;
};

struct GatewayConfig {
  ServerConfig server;
  std::optional<AuthConfig> auth;
  std::map<std::string, ProviderConfig> providers;
  std::vector<ModelConfig> models;
};

using ConfigError = YamlError;

// `environment` resolves ${NAME}; the process environment when absent.
GatewayConfig load_config(const std::string& path);
GatewayConfig parse_config(const std::string& text, const std::string& source_name,
                           const std::map<std::string, std::string>* environment = nullptr);

}  // namespace infergate::gateway
