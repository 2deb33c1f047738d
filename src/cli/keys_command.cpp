#include <fmt/format.h>

#include <ctime>
#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/number_checks.hpp"
#include "gateway/config.hpp"
#include "gateway/key_store.hpp"
#include "openai/api_error.hpp"

namespace infergate::cli {

namespace {

struct KeysArgs {
  std::string db;
  std::string config;
  bool json = false;
  // create
  std::string name;
  std::vector<std::string> models;
  std::optional<std::int64_t> rpm;
  std::optional<std::int64_t> tpm;
  std::optional<std::int64_t> max_parallel;
  std::optional<double> budget_usd;
  std::string budget_period = "month";
  std::optional<double> expires_in_days;
  std::string metadata = "{}";
  // revoke
  std::string id;
};

// The key database: --db, or auth.keys_db of --config.
std::string database(const KeysArgs& args) {
  if (!args.db.empty()) {
    return args.db;
  }
  if (args.config.empty()) {
    throw std::invalid_argument("say where the keys are: --db FILE or --config gateway.yaml");
  }
  const auto config = gateway::load_config(args.config);
  if (!config.auth) {
    throw std::invalid_argument(args.config + " has no auth section, so no key database");
  }
  return config.auth->keys_db;
}

// What to warn of in the models a new key names: those --config does not route. With --db alone
// the gateway's models are not known here.
std::vector<std::string> model_warnings(const KeysArgs& args, const gateway::KeySettings& settings) {
  if (args.config.empty()) {
    return {};
  }
  std::vector<std::string> names;
  for (const auto& model : gateway::load_config(args.config).models) {
    names.push_back(model.name);
  }
  return gateway::unserved_model_warnings(settings, names);
}

void create(const KeysArgs& args) {
  gateway::KeySettings s;
  s.name = args.name;
  s.models = args.models;
  s.rpm = args.rpm;
  s.tpm = args.tpm;
  s.max_parallel = args.max_parallel;
  s.budget_usd = args.budget_usd;
  const auto period = gateway::parse_budget_period(args.budget_period);
  if (!period) {
    throw std::invalid_argument("--budget-period must be day, month or total");
  }
  s.budget_period = *period;
  if (args.expires_in_days) {
    // Beyond this the expiry would overflow a Unix time in seconds.
    constexpr double kMostDays = 1e9;
    if (*args.expires_in_days > kMostDays) {
      throw std::invalid_argument("--expires-in-days must be at most 1000000000");
    }
    s.expires_at =
        static_cast<std::int64_t>(std::time(nullptr)) + static_cast<std::int64_t>(*args.expires_in_days * 86'400);
  }
  // The admin API's validation, so that both ways in accept the same metadata and bounds.
  if (auto problem = gateway::apply_settings_json(fmt::format(R"({{"metadata":{}}})", args.metadata), s)) {
    throw std::invalid_argument(*problem);
  }
  // Before the key is made: a configuration that fails to load must not cost the key, which is
  // shown only once.
  const auto warnings = model_warnings(args, s);
  gateway::KeyStore store(database(args));
  const auto created = store.create(s);
  if (args.json) {
    std::string body = gateway::key_json(created.record);
    body.insert(1, fmt::format(R"("key":{},)", openai::json_string(created.key)));
    fmt::print("{}\n", gateway::with_warnings(std::move(body), warnings));
  } else {
    fmt::print("{}\nid {} (the key is shown only now: store it safely)\n", created.key, created.record.id);
  }
  for (const std::string& warning : warnings) {
    fmt::print(stderr, "warning: {}\n", warning);
  }
}

void list(const KeysArgs& args) {
  gateway::KeyStore store(database(args));
  const auto keys = store.list();
  if (args.json) {
    std::string body = R"({"object":"list","data":[)";
    for (std::size_t i = 0; i < keys.size(); ++i) {
      body += (i ? "," : "") + gateway::key_json(keys[i]);
    }
    fmt::print("{}]}}\n", body);
    return;
  }
  auto limit = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string("-"); };
  auto budget = [](const gateway::KeySettings& s) {
    return s.budget_usd ? fmt::format("${:.2f}/{}", *s.budget_usd, gateway::to_string(s.budget_period))
                        : std::string("-");
  };
  auto expires = [](const gateway::KeySettings& s) {
    if (!s.expires_at) {
      return std::string("-");
    }
    const auto when = static_cast<std::time_t>(*s.expires_at);
    std::tm utc{};
    gmtime_r(&when, &utc);
    return fmt::format("{:04}-{:02}-{:02}", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday);
  };
  fmt::print("{:<13} {:<16} {:<20} {:>8} {:>9} {:>8} {:>14} {:<10} {:<8}\n", "id", "name", "models", "rpm", "tpm",
             "parallel", "budget", "expires", "state");
  const auto now = static_cast<std::int64_t>(std::time(nullptr));
  for (const auto& k : keys) {
    const auto& s = k.settings;
    const std::string models = s.models.empty() ? "*" : fmt::format("{}", fmt::join(s.models, ","));
    const char* state = k.revoked_at ? "revoked" : k.expired(now) ? "expired" : "active";
    fmt::print("{:<13} {:<16} {:<20} {:>8} {:>9} {:>8} {:>14} {:<10} {:<8}\n", k.id, s.name, models, limit(s.rpm),
               limit(s.tpm), limit(s.max_parallel), budget(s), expires(s), state);
  }
}

void revoke(const KeysArgs& args) {
  gateway::KeyStore store(database(args));
  if (!store.revoke(args.id)) {
    throw std::invalid_argument(fmt::format("no key with id '{}'", args.id));
  }
  fmt::print("revoked {}; gateways stop accepting it within their auth.refresh_ms\n", args.id);
}

void add_location(CLI::App* cmd, KeysArgs& args) {
  cmd->add_option("--db", args.db, "SQLite file of the keys");
  cmd->add_option("--config", args.config, "gateway.yaml whose auth.keys_db to use");
  cmd->add_flag("--json", args.json, "Print JSON");
}

}  // namespace

void add_keys_command(CLI::App& app) {
  auto args = std::make_shared<KeysArgs>();
  auto* keys = app.add_subcommand("keys", "Create, list and revoke the gateway's virtual keys");
  keys->require_subcommand(1);

  auto* c = keys->add_subcommand("create", "Create a key; it is printed once");
  add_location(c, *args);
  c->add_option("--name", args->name, "Who or what the key is for");
  c->add_option("--models", args->models, "Public models it may use, comma separated (default: all)")->delimiter(',');
  c->add_option("--rpm", args->rpm, "Requests per minute per model")->check(positive());
  c->add_option("--tpm", args->tpm, "Tokens per minute per model")->check(positive());
  c->add_option("--max-parallel", args->max_parallel, "Requests at once")->check(positive());
  c->add_option("--budget-usd", args->budget_usd, "Spending limit per budget period")->check(non_negative());
  c->add_option("--budget-period", args->budget_period, "day, month or total")->capture_default_str();
  c->add_option("--expires-in-days", args->expires_in_days, "Days until the key stops working")->check(positive());
  c->add_option("--metadata", args->metadata, "A JSON object kept with the key")->capture_default_str();
  c->callback([args] { create(*args); });

  auto* l = keys->add_subcommand("list", "List keys (never the keys themselves)");
  add_location(l, *args);
  l->callback([args] { list(*args); });

  auto* r = keys->add_subcommand("revoke", "Revoke a key by its id");
  add_location(r, *args);
  r->add_option("id", args->id, "The key's id (from create or list)")->required();
  r->callback([args] { revoke(*args); });
}

}  // namespace infergate::cli
