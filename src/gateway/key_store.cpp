#include "gateway/key_store.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <ctime>
#include <stdexcept>

namespace infergate::gateway {

namespace {

constexpr const char* kColumns =
    "id, hash, name, models, rpm, tpm, max_parallel, budget_usd, budget_period, expires_at, metadata, created_at, "
    "revoked_at";

std::string models_json(const std::vector<std::string>& models) {
  boost::json::array a;
  for (const auto& m : models) {
    a.emplace_back(m);
  }
  return boost::json::serialize(a);
}

std::vector<std::string> parse_models(const std::string& text) {
  std::vector<std::string> models;
  boost::system::error_code ec;
  const auto value = boost::json::parse(text, ec);
  if (!ec && value.is_array()) {
    for (const auto& m : value.get_array()) {
      if (m.is_string()) {
        models.emplace_back(m.get_string());
      }
    }
  }
  return models;
}

KeyRecord read_row(const Statement& s) {
  KeyRecord r;
  r.id = s.text(0);
  r.hash = from_hex(s.text(1)).value_or(KeyHash{});
  r.settings.name = s.text(2);
  r.settings.models = parse_models(s.text(3));
  r.settings.rpm = s.integer(4);
  r.settings.tpm = s.integer(5);
  r.settings.max_parallel = s.integer(6);
  r.settings.budget_usd = s.real(7);
  r.settings.budget_period = parse_budget_period(s.text(8)).value_or(BudgetPeriod::month);
  r.settings.expires_at = s.integer(9);
  r.settings.metadata = s.text(10);
  r.created_at = s.integer(11).value_or(0);
  r.revoked_at = s.integer(12);
  return r;
}

// Binds every setting from parameter `first` on, in KeySettings order after the hash.
void bind_settings(Statement& s, int first, const KeySettings& k) {
  s.bind(first, k.name);
  s.bind(first + 1, models_json(k.models));
  s.bind(first + 2, k.rpm);
  s.bind(first + 3, k.tpm);
  s.bind(first + 4, k.max_parallel);
  s.bind(first + 5, k.budget_usd);
  s.bind(first + 6, std::string(to_string(k.budget_period)));
  s.bind(first + 7, k.expires_at);
  s.bind(first + 8, k.metadata);
}

std::int64_t now_unix() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

}  // namespace

KeyStore::KeyStore(const std::string& path) : db_(path, "the key database") {
  db_.exec(
      "CREATE TABLE IF NOT EXISTS keys ("
      " id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, name TEXT NOT NULL DEFAULT '',"
      " models TEXT NOT NULL DEFAULT '[]', rpm INTEGER, tpm INTEGER, max_parallel INTEGER, budget_usd REAL,"
      " budget_period TEXT NOT NULL DEFAULT 'month', expires_at INTEGER, metadata TEXT NOT NULL DEFAULT '{}',"
      " created_at INTEGER NOT NULL, revoked_at INTEGER)");
}

KeyStore::Created KeyStore::create(const KeySettings& settings) {
  const std::lock_guard lock(mutex_);
  Created created;
  const NewKey fresh = generate_key();
  created.key = fresh.key;
  created.record.id = fresh.id;
  created.record.hash = hash_key(fresh.key);
  created.record.settings = settings;
  created.record.created_at = now_unix();
  Statement s(db_,
              "INSERT INTO keys (id, hash, name, models, rpm, tpm, max_parallel, budget_usd, budget_period, "
              "expires_at, metadata, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  s.bind(1, created.record.id);
  s.bind(2, to_hex(created.record.hash));
  bind_settings(s, 3, settings);
  s.bind(12, created.record.created_at);
  s.step();
  return created;
}

std::vector<KeyRecord> KeyStore::list() {
  const std::lock_guard lock(mutex_);
  Statement s(db_, fmt::format("SELECT {} FROM keys ORDER BY created_at, id", kColumns));
  std::vector<KeyRecord> out;
  while (s.step()) {
    out.push_back(read_row(s));
  }
  return out;
}

std::optional<KeyRecord> KeyStore::find(const std::string& id) {
  const std::lock_guard lock(mutex_);
  Statement s(db_, fmt::format("SELECT {} FROM keys WHERE id = ?1", kColumns));
  s.bind(1, id);
  if (!s.step()) {
    return std::nullopt;
  }
  return read_row(s);
}

bool KeyStore::update(const std::string& id, const KeySettings& settings) {
  const std::lock_guard lock(mutex_);
  Statement s(db_,
              "UPDATE keys SET name = ?2, models = ?3, rpm = ?4, tpm = ?5, max_parallel = ?6, budget_usd = ?7, "
              "budget_period = ?8, expires_at = ?9, metadata = ?10 WHERE id = ?1");
  s.bind(1, id);
  bind_settings(s, 2, settings);
  s.step();
  return db_.changes() > 0;
}

bool KeyStore::revoke(const std::string& id) {
  const std::lock_guard lock(mutex_);
  Statement s(db_, "UPDATE keys SET revoked_at = COALESCE(revoked_at, ?2) WHERE id = ?1");
  s.bind(1, id);
  s.bind(2, now_unix());
  s.step();
  return db_.changes() > 0;
}

}  // namespace infergate::gateway
