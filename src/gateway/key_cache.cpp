#include "gateway/key_cache.hpp"

#include <spdlog/spdlog.h>

#include "core/background_thread.hpp"

namespace infergate::gateway {

KeyCache::KeyCache(KeyStore& store, std::chrono::milliseconds interval, std::function<void()> also)
    : store_(store), interval_(interval), also_(std::move(also)) {
  refresh();
  thread_ = std::thread([this] {
    become_background_thread("ig-key-refresh");
    loop();
  });
}

KeyCache::~KeyCache() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void KeyCache::refresh() {
  auto keys = std::make_shared<Keys>();
  for (KeyRecord& record : store_.list()) {
    std::string id = record.id;
    keys->emplace(std::move(id), std::make_shared<const KeyRecord>(std::move(record)));
  }
  keys_.store(std::move(keys));
  if (also_) {
    also_();
  }
}

void KeyCache::loop() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) {
    lock.unlock();
    try {
      refresh();
    } catch (const std::exception& e) {
      // The last good snapshot stays in force; the next interval tries again.
      spdlog::error("key refresh failed, keeping the keys loaded before: {}", e.what());
    }
    lock.lock();
  }
}

AuthResult KeyCache::authenticate(std::string_view authorization, std::int64_t now_unix) const {
  AuthResult result;
  if (authorization.empty()) {
    return result;
  }
  constexpr std::string_view kBearer = "Bearer ";
  const std::string_view key = authorization.starts_with(kBearer) ? authorization.substr(kBearer.size()) : "";
  const auto id = key_id(key);
  if (!id) {
    result.status = AuthStatus::malformed;
    return result;
  }
  const auto keys = keys_.load();
  const auto it = keys->find(*id);
  // The hash is computed and compared even for an unknown id, so that timing tells nothing.
  const KeyHash presented = hash_key(key);
  if (it == keys->end() || !same_hash(presented, it->second->hash)) {
    result.status = AuthStatus::unknown;
    return result;
  }
  const auto& record = it->second;
  if (record->revoked_at) {
    result.status = AuthStatus::revoked;
  } else if (record->expired(now_unix)) {
    result.status = AuthStatus::expired;
  } else {
    result.status = AuthStatus::ok;
    result.key = record;
  }
  return result;
}

}  // namespace infergate::gateway
