#pragma once
// X-Request-Id: the client's own when it is safe to echo, otherwise a fresh random one. Held in
// place, not on the heap: every request has one.
#include <array>
#include <cstddef>
#include <string_view>

namespace infergate::gateway {

// Accepts 1-128 visible ASCII characters (no spaces, no control characters: no header injection).
bool acceptable_request_id(std::string_view id);

// NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): chars_ is written before it is read.
class RequestId {
 public:
  static constexpr std::size_t kMaxSize = 128;

  // The client's id when acceptable_request_id() allows echoing it, else a generated one.
  static RequestId from_client(std::string_view client_id);
  // 32 hex digits from a per-thread generator seeded from the OS.
  static RequestId generate();

  [[nodiscard]] std::string_view view() const { return {chars_.data(), size_}; }
  operator std::string_view() const { return view(); }  // NOLINT(google-explicit-constructor): used as a header value

 private:
  // Not cleared: only the first size_ are ever read, and every request makes one.
  std::array<char, kMaxSize> chars_;
  std::size_t size_ = 0;
};

}  // namespace infergate::gateway
