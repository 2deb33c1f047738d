#pragma once
// Virtual keys in SQLite (WAL, so the gateway's readers never wait on a writer, and several
// processes — replicas on one machine, `infergate keys` — share one file). Only the SHA-256 of a
// key is stored. Every call is a blocking database round trip: control plane only, never on a
// request's path (the gateway reads keys from KeyCache).
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gateway/key_record.hpp"
#include "gateway/sqlite_db.hpp"

namespace infergate::gateway {

class KeyStore {
 public:
  // Opens (creating when needed) the database at `path`; throws std::runtime_error naming the
  // file and SQLite's reason.
  explicit KeyStore(const std::string& path);
  KeyStore(const KeyStore&) = delete;
  KeyStore& operator=(const KeyStore&) = delete;

  struct Created {
    KeyRecord record;
    std::string key;  // the only time the whole key exists outside its holder
  };
  Created create(const KeySettings& settings);

  // Every key, revoked ones included, oldest first.
  std::vector<KeyRecord> list();
  std::optional<KeyRecord> find(const std::string& id);
  // False when no key has that id. Revoking twice keeps the first time.
  bool update(const std::string& id, const KeySettings& settings);
  bool revoke(const std::string& id);

 private:
  std::mutex mutex_;
  SqliteDb db_;
};

}  // namespace infergate::gateway
