#include "gateway/key_cache.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>

#include "core/background_thread.hpp"
#include "gateway/key_state.hpp"

namespace infergate::gateway {

namespace {

// Keys this thread hashed and found right, so that the next request with the same key skips
// SHA-256: a presented key equal (in constant time) to one of these has its hash. Only keys that
// matched a record get here, a few per thread; a revoked or expired key is still refused by its
// record.
struct Verified {
  std::array<char, kKeyLength> key{};
  KeyHash hash{};
};
thread_local std::array<Verified, 8> verified;

bool matches(std::string_view presented, const KeyHash& stored) {
  Verified& slot = verified[stored[0] % verified.size()];
  // The slot's hash is a stored one too: comparing them tells nothing of the presented key.
  if (slot.hash == stored && same_key(slot.key.data(), presented.data())) {
    return true;
  }
  if (!same_hash(hash_key(presented), stored)) {
    return false;
  }
  std::copy_n(presented.data(), kKeyLength, slot.key.data());
  slot.hash = stored;
  return true;
}

// The key this thread let in last and its record, in the snapshot numbered `generation`: most
// requests on a thread in a row carry the same key, and one comparison in constant time stands
// in for checking its shape, looking up its id and comparing its hash. A revocation or any other
// change of the key comes in a new snapshot, whose number no longer matches. The record lies in
// `keys`, the snapshot the thread holds while it and the number match.
struct LastKey {
  std::uint64_t generation = 0;
  const void* keys = nullptr;  // only compared: the snapshot's own type is KeyCache's
  std::array<char, kKeyLength> key{};
  const std::shared_ptr<const KeyRecord>* record = nullptr;
};
thread_local LastKey last_key;

// Every KeyCache's snapshots are numbered from this one count: a number is never reused, so the one
// a thread remembers cannot name another cache's snapshot.
std::atomic<std::uint64_t> last_generation{0};

}  // namespace

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
  // One refresh at a time (the background thread's and the admin API's): two building from the
  // same snapshot would each give a new key its own state, and the one stored first would lose
  // what it counted.
  const std::lock_guard lock(refresh_mutex_);
  const auto previous = keys_.load();
  auto keys = std::make_shared<Keys>();
  for (KeyRecord& record : store_.list()) {
    if (previous) {
      if (const auto known = previous->find(record.id); known != previous->end()) {
        record.state = known->second->state;
      }
    }
    if (!record.state) {
      record.state = std::make_shared<KeyState>();
    }
    std::string id = record.id;
    keys->emplace(std::move(id), std::make_shared<const KeyRecord>(std::move(record)));
  }
  keys_.store(std::move(keys));
  generation_.store(last_generation.fetch_add(1, std::memory_order_relaxed) + 1, std::memory_order_release);
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
  // The snapshot this thread read last, kept until a refresh numbers a new one.
  thread_local std::uint64_t seen_generation = 0;
  thread_local std::shared_ptr<const Keys> seen_keys;
  if (const std::uint64_t generation = generation_.load(std::memory_order_acquire); generation != seen_generation) {
    seen_keys = keys_.load();
    seen_generation = generation;
  }
  if (last_key.generation != seen_generation || last_key.keys != seen_keys.get() || key.size() != kKeyLength ||
      !same_key(last_key.key.data(), key.data())) {
    const auto id = key_id(key);
    if (!id) {
      result.status = AuthStatus::malformed;
      return result;
    }
    const Keys* keys = seen_keys.get();
    const auto it = keys->find(*id);
    if (it == keys->end()) {
      (void)hash_key(key);  // as much work as a known id's first check, so that timing tells nothing
      result.status = AuthStatus::unknown;
      return result;
    }
    if (!matches(key, it->second->hash)) {
      result.status = AuthStatus::unknown;
      return result;
    }
    std::copy_n(key.data(), kKeyLength, last_key.key.data());
    last_key.record = &it->second;
    last_key.generation = seen_generation;
    last_key.keys = keys;
  }
  const std::shared_ptr<const KeyRecord>& record = *last_key.record;
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
