#include "gateway/key_record.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <cmath>

#include "core/closest_name.hpp"
#include "core/json_error.hpp"
#include "core/json_string.hpp"

namespace infergate::gateway {

const char* to_string(BudgetPeriod period) {
  switch (period) {
    case BudgetPeriod::day:
      return "day";
    case BudgetPeriod::month:
      return "month";
    case BudgetPeriod::total:
      return "total";
  }
  return "?";
}

std::optional<BudgetPeriod> parse_budget_period(std::string_view text) {
  for (BudgetPeriod p : {BudgetPeriod::day, BudgetPeriod::month, BudgetPeriod::total}) {
    if (text == to_string(p)) {
      return p;
    }
  }
  return std::nullopt;
}

bool KeyRecord::allows(std::string_view model) const {
  const auto& models = settings.models;
  return models.empty() || std::find(models.begin(), models.end(), model) != models.end();
}

std::string key_json(const KeyRecord& r) {
  namespace json = boost::json;
  const KeySettings& s = r.settings;
  json::object o{{"id", r.id}, {"key_prefix", display_prefix(r.id)}, {"name", s.name}, {"created_at", r.created_at}};
  json::array models;
  for (const auto& m : s.models) {
    models.emplace_back(m);
  }
  o["models"] = std::move(models);
  auto optional = [&o](const char* field, const auto& value) {
    if (value) {
      o[field] = *value;
    } else {
      o[field] = nullptr;
    }
  };
  optional("rpm", s.rpm);
  optional("tpm", s.tpm);
  optional("max_parallel", s.max_parallel);
  optional("budget_usd", s.budget_usd);
  o["budget_period"] = to_string(s.budget_period);
  optional("expires_at", s.expires_at);
  optional("revoked_at", r.revoked_at);
  boost::system::error_code ec;
  json::value metadata = json::parse(s.metadata, ec);
  o["metadata"] = ec ? json::value(json::object{}) : std::move(metadata);
  return json::serialize(o);
}

namespace {

// What a key may carry: every key's record sits in each replica's cache and in every listing, so
// one with megabytes of metadata or thousands of names would make each refresh and listing slow.
constexpr std::size_t kMostNameBytes = 256;
constexpr std::size_t kMostModels = 1024;
constexpr std::size_t kMostMetadataBytes = std::size_t{16} << 10;

std::optional<std::string> size_problem(const KeySettings& s) {
  if (s.name.size() > kMostNameBytes) {
    return fmt::format("'name' is {} bytes long; at most {}", s.name.size(), kMostNameBytes);
  }
  if (s.models.size() > kMostModels) {
    return fmt::format("'models' names {} models; at most {}", s.models.size(), kMostModels);
  }
  for (const std::string& model : s.models) {
    if (model.empty() || model.size() > kMostNameBytes) {
      return fmt::format("'models' has a name of {} bytes; each must be 1 to {}", model.size(), kMostNameBytes);
    }
  }
  if (s.metadata.size() > kMostMetadataBytes) {
    return fmt::format("'metadata' is {} bytes as JSON; at most {}", s.metadata.size(), kMostMetadataBytes);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> apply_settings_json(std::string_view body, KeySettings& settings) {
  namespace json = boost::json;
  std::string syntax_error;
  const json::value parsed = parse_json(body, syntax_error);
  if (!syntax_error.empty()) {
    return "the body is not valid JSON: " + syntax_error;
  }
  if (!parsed.is_object()) {
    return "the body must be a JSON object of key settings";
  }
  KeySettings s = settings;
  auto positive = [](const json::value& v, const char* field,
                     std::optional<std::int64_t>& out) -> std::optional<std::string> {
    if (v.is_null()) {
      out.reset();
    } else if (v.is_int64() && v.get_int64() > 0) {
      out = v.get_int64();
    } else {
      return fmt::format("'{}' must be a positive integer or null", field);
    }
    return std::nullopt;
  };
  for (const auto& [name, v] : parsed.get_object()) {
    std::optional<std::string> error;
    if (name == "name") {
      if (!v.is_string()) {
        return "'name' must be a string";
      }
      s.name = v.get_string();
    } else if (name == "models") {
      if (!v.is_array()) {
        return "'models' must be an array of model names ([] for every model)";
      }
      s.models.clear();
      for (const auto& m : v.get_array()) {
        if (!m.is_string()) {
          return "'models' must be an array of model names ([] for every model)";
        }
        s.models.emplace_back(m.get_string());
      }
    } else if (name == "rpm") {
      error = positive(v, "rpm", s.rpm);
    } else if (name == "tpm") {
      error = positive(v, "tpm", s.tpm);
    } else if (name == "max_parallel") {
      error = positive(v, "max_parallel", s.max_parallel);
    } else if (name == "expires_at") {
      error = positive(v, "expires_at", s.expires_at);
    } else if (name == "budget_usd") {
      if (v.is_null()) {
        s.budget_usd.reset();
      } else if (v.is_number() && v.to_number<double>() >= 0 && std::isfinite(v.to_number<double>())) {
        s.budget_usd = v.to_number<double>();  // 1e400 reads as infinity, which JSON cannot write back
      } else {
        return "'budget_usd' must be a finite number of at least 0, or null";
      }
    } else if (name == "budget_period") {
      const auto period = v.is_string() ? parse_budget_period(v.get_string()) : std::nullopt;
      if (!period) {
        return "'budget_period' must be \"day\", \"month\" or \"total\"";
      }
      s.budget_period = *period;
    } else if (name == "metadata") {
      if (!v.is_object()) {
        return "'metadata' must be a JSON object";
      }
      s.metadata = json::serialize(v);
    } else {
      return fmt::format(
          "unknown field '{}' (name, models, rpm, tpm, max_parallel, budget_usd, budget_period, expires_at, metadata)",
          std::string_view(name));
    }
    if (error) {
      return error;
    }
  }
  if (auto problem = size_problem(s)) {
    return problem;
  }
  settings = std::move(s);
  return std::nullopt;
}

std::vector<std::string> unserved_model_warnings(const KeySettings& settings, std::span<const std::string> served) {
  std::vector<std::string> warnings;
  for (const std::string& model : settings.models) {
    if (std::find(served.begin(), served.end(), model) == served.end()) {
      warnings.push_back(
          fmt::format("this gateway serves no model '{}'{}: the key's calls to it get 404 until one is "
                      "configured",
                      model, did_you_mean(model, served)));
    }
  }
  return warnings;
}

std::string with_warnings(std::string body, std::span<const std::string> warnings) {
  if (warnings.empty() || body.empty() || body.back() != '}') {
    return body;
  }
  body.pop_back();
  body += R"(,"warnings":[)";
  for (std::size_t i = 0; i < warnings.size(); ++i) {
    body += i == 0 ? "" : ",";
    append_json_string(body, warnings[i]);
  }
  body += "]}";
  return body;
}

}  // namespace infergate::gateway
