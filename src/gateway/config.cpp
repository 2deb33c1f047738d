#include "gateway/config.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "core/text_file.hpp"
#include "core/yaml_reader.hpp"
#include "gateway/balancer.hpp"
#include "gateway/redis_connection.hpp"
#include "openai/api_base.hpp"

namespace infergate::gateway {

namespace {

const std::string kHeading = "invalid configuration:";

void read_server(YamlReader& r, const YAML::Node& node, ServerConfig& out) {
  if (!node) {
    return;
  }
  if (!node.IsMap()) {
    r.problem(node, "server", "must be a mapping");
    return;
  }
  r.known_keys(node, "server",
               {"host", "port", "threads", "access_log", "drain_ms", "busy_poll_us", "send_timeout_ms"});
  r.milliseconds(node, "drain_ms", "server", out.drain);
  r.milliseconds(node, "send_timeout_ms", "server", out.send_timeout);
  if (node["host"]) {
    out.host = r.text(node["host"], "server.host").value_or(out.host);
  }
  if (node["port"]) {
    out.port = r.number<std::uint16_t>(node["port"], "server.port", 0, 65535).value_or(out.port);
  }
  if (node["threads"]) {
    out.threads = r.number<int>(node["threads"], "server.threads", 0, 1024).value_or(out.threads);
  }
  if (node["access_log"]) {
    out.access_log = r.text(node["access_log"], "server.access_log").value_or("");
  }
  if (node["busy_poll_us"]) {
    // Longer waits only burn the core: 20 µs already cost CPU for nothing (bench/RESULTS.md).
    out.busy_poll = std::chrono::microseconds(
        r.number<int>(node["busy_poll_us"], "server.busy_poll_us", 0, 1000).value_or(out.busy_poll.count()));
  }
}

void read_providers(YamlReader& r, const YAML::Node& node, std::map<std::string, ProviderConfig>& out) {
  if (!node || !node.IsMap() || node.size() == 0) {
    r.problem(node, "providers", "must be a mapping with at least one provider");
    return;
  }
  for (const auto& entry : node) {
    const std::string name = entry.first.Scalar();
    const std::string field = "providers." + name;
    const YAML::Node p = entry.second;
    if (!p.IsMap()) {
      r.problem(p, field, "must be a mapping");
      continue;
    }
    r.known_keys(p, field, {"base_url", "api_key", "timeouts", "tls"});
    ProviderConfig provider;
    provider.name = name;
    if (!p["base_url"]) {
      r.problem(p, field + ".base_url", "is required");
    } else if (auto url = r.text(p["base_url"], field + ".base_url")) {
      try {
        provider.base = openai::parse_api_base(*url);
      } catch (const std::invalid_argument& e) {
        r.problem(p["base_url"], field + ".base_url", e.what());
      }
    }
    if (p["api_key"]) {
      provider.api_key = r.text(p["api_key"], field + ".api_key").value_or("");
    }
    if (const YAML::Node t = p["timeouts"]) {
      r.known_keys(t, field + ".timeouts", {"connect_ms", "first_token_ms", "idle_ms", "total_ms"});
      r.milliseconds(t, "connect_ms", field + ".timeouts", provider.connect_timeout);
      r.milliseconds(t, "first_token_ms", field + ".timeouts", provider.first_byte_timeout);
      r.milliseconds(t, "idle_ms", field + ".timeouts", provider.idle_timeout);
      r.milliseconds(t, "total_ms", field + ".timeouts", provider.total_timeout);
    }
    if (const YAML::Node tls = p["tls"]) {
      r.known_keys(tls, field + ".tls", {"verify"});
      if (tls["verify"]) {
        provider.tls_verify = r.boolean(tls["verify"], field + ".tls.verify").value_or(true);
      }
    }
    out.emplace(name, std::move(provider));
  }
}

void read_models(YamlReader& r, const YAML::Node& node, const std::map<std::string, ProviderConfig>& providers,
                 std::vector<ModelConfig>& out) {
  if (!node || !node.IsMap() || node.size() == 0) {
    r.problem(node, "models", "must be a mapping with at least one public model name");
    return;
  }
  std::set<std::string> names;
  for (const auto& entry : node) {
    names.insert(entry.first.Scalar());
  }
  for (const auto& entry : node) {
    ModelConfig model;
    model.name = entry.first.Scalar();
    const std::string field = "models." + model.name;
    const YAML::Node m = entry.second;
    if (!m.IsMap()) {
      r.problem(m, field, "must be a mapping");
      continue;
    }
    r.known_keys(m, field, {"strategy", "deployments", "retry", "fallbacks", "price"});
    if (const YAML::Node price = m["price"]) {
      if (!price.IsMap()) {
        r.problem(price, field + ".price", "must be a mapping: {input: USD, output: USD} per million tokens");
      } else {
        r.known_keys(price, field + ".price", {"input", "output"});
        Price p;
        for (auto [key, out] : {std::pair{"input", &p.input}, std::pair{"output", &p.output}}) {
          if (price[key]) {
            *out = r.number<double>(price[key], fmt::format("{}.price.{}", field, key), 0.0, 1e6).value_or(0.0);
          }
        }
        model.price = p;
      }
    }
    if (m["strategy"]) {
      model.strategy = r.text(m["strategy"], field + ".strategy").value_or(model.strategy);
      try {
        make_balancer(model.strategy);
      } catch (const std::invalid_argument& e) {
        r.problem(m["strategy"], field + ".strategy", e.what());
      }
    }
    const YAML::Node deployments = m["deployments"];
    if (!deployments || !deployments.IsSequence() || deployments.size() == 0) {
      r.problem(deployments ? deployments : m, field + ".deployments", "must list at least one deployment");
    } else {
      for (std::size_t i = 0; i < deployments.size(); ++i) {
        const YAML::Node d = deployments[i];
        const std::string dfield = fmt::format("{}.deployments[{}]", field, i);
        if (!d.IsMap()) {
          r.problem(d, dfield, "must be a mapping with provider and model");
          continue;
        }
        r.known_keys(d, dfield, {"provider", "model", "weight"});
        DeploymentConfig deployment;
        if (!d["provider"]) {
          r.problem(d, dfield + ".provider", "is required");
        } else if (auto provider = r.text(d["provider"], dfield + ".provider")) {
          deployment.provider = *provider;
          if (!providers.contains(*provider)) {
            r.problem(d["provider"], dfield + ".provider", fmt::format("no provider named '{}'", *provider));
          }
        }
        if (!d["model"]) {
          r.problem(d, dfield + ".model", "is required (the upstream's name for the model)");
        } else {
          deployment.model = r.text(d["model"], dfield + ".model").value_or("");
        }
        if (d["weight"]) {
          deployment.weight = r.number<int>(d["weight"], dfield + ".weight", 1, 1000).value_or(1);
        }
        model.deployments.push_back(std::move(deployment));
      }
    }
    if (const YAML::Node retry = m["retry"]) {
      r.known_keys(retry, field + ".retry", {"max_attempts", "base_backoff_ms", "max_backoff_ms", "deadline_ms"});
      if (retry["max_attempts"]) {
        model.retry.max_attempts =
            r.number<int>(retry["max_attempts"], field + ".retry.max_attempts", 1, 20).value_or(3);
      }
      r.milliseconds(retry, "base_backoff_ms", field + ".retry", model.retry.base_backoff);
      r.milliseconds(retry, "max_backoff_ms", field + ".retry", model.retry.max_backoff);
      r.milliseconds(retry, "deadline_ms", field + ".retry", model.retry.deadline);
    }
    if (const YAML::Node fallbacks = m["fallbacks"]) {
      if (!fallbacks.IsSequence()) {
        r.problem(fallbacks, field + ".fallbacks", "must be a list of public model names");
      } else {
        for (std::size_t i = 0; i < fallbacks.size(); ++i) {
          auto name = r.text(fallbacks[i], fmt::format("{}.fallbacks[{}]", field, i));
          if (name && !names.contains(*name)) {
            r.problem(fallbacks[i], fmt::format("{}.fallbacks[{}]", field, i),
                      fmt::format("no model named '{}' in this file", *name));
          } else if (name && *name == model.name) {
            r.problem(fallbacks[i], fmt::format("{}.fallbacks[{}]", field, i), "a model cannot fall back to itself");
          } else if (name) {
            model.fallbacks.push_back(*name);
          }
        }
      }
    }
    out.push_back(std::move(model));
  }
}

void read_auth(YamlReader& r, const YAML::Node& node, std::optional<AuthConfig>& out) {
  if (!node) {
    return;
  }
  if (!node.IsMap()) {
    r.problem(node, "auth", "must be a mapping");
    return;
  }
  r.known_keys(node, "auth",
               {"master_key", "keys_db", "refresh_ms", "state", "state_failure", "state_timeout_ms", "state_leases",
                "ledger_flush_ms", "ledger_journal"});
  AuthConfig auth;
  if (!node["master_key"]) {
    r.problem(node, "auth.master_key", "is required: the key that guards /admin (write it as ${ENV_VAR})");
  } else if (auto key = r.text(node["master_key"], "auth.master_key")) {
    auth.master_key = *key;
    if (auth.master_key.size() < 16) {
      r.problem(node["master_key"], "auth.master_key", "needs at least 16 characters");
    }
  }
  if (!node["keys_db"]) {
    r.problem(node, "auth.keys_db", "is required: the SQLite file that holds the keys");
  } else {
    auth.keys_db = r.text(node["keys_db"], "auth.keys_db").value_or("");
  }
  auth.ledger_journal = node["ledger_journal"] ? r.text(node["ledger_journal"], "auth.ledger_journal").value_or("")
                                               : auth.keys_db + "-ledger.jsonl";
  r.milliseconds(node, "refresh_ms", "auth", auth.refresh);
  r.milliseconds(node, "ledger_flush_ms", "auth", auth.ledger_flush);
  if (node["state"]) {
    auth.state = r.text(node["state"], "auth.state").value_or(auth.state);
    if (auth.state != "local") {
      try {
        parse_redis_url(auth.state);
      } catch (const std::invalid_argument& e) {
        r.problem(node["state"], "auth.state", fmt::format("must be 'local' or redis://host:port: {}", e.what()));
      }
    }
  }
  if (node["state_failure"]) {
    const auto mode = r.text(node["state_failure"], "auth.state_failure");
    if (mode && *mode != "open" && *mode != "closed") {
      r.problem(node["state_failure"], "auth.state_failure", "must be open (admit without limits) or closed (503)");
    }
    auth.fail_open = mode.value_or("open") != "closed";
  }
  r.milliseconds(node, "state_timeout_ms", "auth", auth.state_timeout);
  if (node["state_leases"]) {
    auth.state_leases = r.boolean(node["state_leases"], "auth.state_leases").value_or(false);
    if (auth.state_leases && auth.state == "local") {
      r.problem(node["state_leases"], "auth.state_leases",
                "needs auth.state: redis://host:port (local state has no leases)");
    }
  }
  out = std::move(auth);
}

}  // namespace

GatewayConfig parse_config(const std::string& text, const std::string& source_name,
                           const std::map<std::string, std::string>* environment) {
  YAML::Node root = parse_yaml(text, source_name, kHeading);
  YamlReader r(source_name, environment);
  GatewayConfig config;
  if (!root.IsMap()) {
    throw ConfigError(kHeading, {source_name + ": the file must be a mapping with providers and models"});
  }
  r.known_keys(root, "", {"server", "auth", "providers", "models"});
  read_server(r, root["server"], config.server);
  read_auth(r, root["auth"], config.auth);
  read_providers(r, root["providers"], config.providers);
  read_models(r, root["models"], config.providers, config.models);
  if (!r.problems().empty()) {
    throw ConfigError(kHeading, std::move(r.problems()));
  }
  return config;
}

GatewayConfig load_config(const std::string& path) {
  std::string text;
  try {
    text = read_text_file(path);
  } catch (const std::runtime_error&) {
    throw ConfigError(kHeading, {fmt::format("{}: cannot open the file", path)});
  }
  return parse_config(text, path);
}

}  // namespace infergate::gateway
