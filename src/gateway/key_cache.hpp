#pragma once
// The keys the gateway checks requests against: an immutable snapshot in memory, swapped whole
// by a background thread that reads the store every `refresh` interval. No database round trip on
// a request's path; a key created, changed or revoked anywhere (another replica, `infergate keys`)
// takes effect here within one interval plus the read. What this process counts for a key (its
// KeyState) passes from each snapshot to the next.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "core/text_hash.hpp"
#include "gateway/key_record.hpp"
#include "gateway/key_store.hpp"

namespace infergate::gateway {

enum class AuthStatus { ok, missing, malformed, unknown, revoked, expired };

struct AuthResult {
  AuthStatus status = AuthStatus::missing;
  std::shared_ptr<const KeyRecord> key;  // set when ok; keeps its snapshot alive
};

class KeyCache {
 public:
  // Loads the store once (throwing what the store throws), then reads it again every `interval` in
  // the background, calling `also` after each read (the ledger's spending, refreshed alongside).
  KeyCache(KeyStore& store, std::chrono::milliseconds interval, std::function<void()> also = {});
  ~KeyCache();
  KeyCache(const KeyCache&) = delete;
  KeyCache& operator=(const KeyCache&) = delete;

  // `authorization` is the request's Authorization header; `now_unix` judges expiry.
  [[nodiscard]] AuthResult authenticate(std::string_view authorization, std::int64_t now_unix) const;

  // Reads the store now (the admin API calls it after a change, so this replica need not wait).
  void refresh();

  [[nodiscard]] std::chrono::milliseconds refresh_interval() const { return interval_; }

 private:
  // Looked up by a view of the presented key's id, without copying it into a string.
  using Keys = std::unordered_map<std::string, std::shared_ptr<const KeyRecord>, TextHash, std::equal_to<>>;
  void loop();

  KeyStore& store_;
  std::chrono::milliseconds interval_;
  std::function<void()> also_;
  std::atomic<std::shared_ptr<const Keys>> keys_;
  // Numbers keys_'s snapshots, unique in the process: a thread that saw this number last uses the
  // snapshot it read then, without touching keys_. Each read of keys_ takes its lock bit and
  // counts a reference, on one cache line that every I/O thread would write per request.
  std::atomic<std::uint64_t> generation_{0};
  std::mutex refresh_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace infergate::gateway
