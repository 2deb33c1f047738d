#pragma once
// One virtual key as the gateway enforces it: who may call, which models, how fast, how much.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/virtual_key.hpp"

namespace infergate::gateway {

enum class BudgetPeriod { day, month, total };
const char* to_string(BudgetPeriod period);
std::optional<BudgetPeriod> parse_budget_period(std::string_view text);

// What an administrator sets on a key. Absent limits do not limit.
struct KeySettings {
  std::string name;
  std::vector<std::string> models;  // public model names; empty: every model
  std::optional<std::int64_t> rpm;
  std::optional<std::int64_t> tpm;
  std::optional<std::int64_t> max_parallel;
  std::optional<double> budget_usd;
  BudgetPeriod budget_period = BudgetPeriod::month;
  std::optional<std::int64_t> expires_at;  // Unix seconds
  std::string metadata = "{}";             // a JSON object, free-form
};

class KeyState;

struct KeyRecord {
  std::string id;
  KeyHash hash{};
  KeySettings settings;
  std::int64_t created_at = 0;  // Unix seconds
  std::optional<std::int64_t> revoked_at;
  // What this process counts for the key (set by the key cache; a record read from the store
  // for display has none).
  std::shared_ptr<KeyState> state;

  [[nodiscard]] bool allows(std::string_view model) const;
  [[nodiscard]] bool expired(std::int64_t now_unix) const {
    return settings.expires_at && *settings.expires_at <= now_unix;
  }
};

// As the admin API and `infergate keys list` show it: never the hash.
std::string key_json(const KeyRecord& record);

// Applies the fields of a JSON object (the admin API's create and update bodies) to `settings`;
// null clears a limit. Returns what is wrong, naming the field, and leaves `settings` unchanged.
// The settings that result are checked whole: a name and each model name of at most 256 bytes, at
// most 1024 models, metadata of at most 16 KiB.
std::optional<std::string> apply_settings_json(std::string_view body, KeySettings& settings);

// One warning per model that `settings` names and `served` (the gateway's public model names)
// lacks, with the closest served name. A key may rightly be made before its model is routed, so
// this is no error; but a misspelt name would otherwise show only as every such call failing.
std::vector<std::string> unserved_model_warnings(const KeySettings& settings, std::span<const std::string> served);

// `body`, a JSON object, with a "warnings" array of `warnings` added when there are any.
std::string with_warnings(std::string body, std::span<const std::string> warnings);

}  // namespace infergate::gateway
