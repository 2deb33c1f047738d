#include "gateway/request_id.hpp"

#include <cstdint>
#include <random>

#include "core/random.hpp"

namespace infergate::gateway {

bool acceptable_request_id(std::string_view id) {
  if (id.empty() || id.size() > RequestId::kMaxSize) {
    return false;
  }
  for (char c : id) {
    if (c <= ' ' || c > '~') {
      return false;
    }
  }
  return true;
}

RequestId RequestId::from_client(std::string_view client_id) {
  if (!acceptable_request_id(client_id)) {
    return generate();
  }
  RequestId id;
  client_id.copy(id.chars_.data(), client_id.size());
  id.size_ = client_id.size();
  return id;
}

RequestId RequestId::generate() {
  thread_local Rng rng(std::random_device{}() ^ (static_cast<std::uint64_t>(std::random_device{}()) << 32));
  static constexpr char kHex[] = "0123456789abcdef";
  RequestId id;
  id.size_ = 32;
  std::uint64_t bits = rng();
  for (std::size_t i = 0; i < id.size_; ++i) {
    if (i == 16) {
      bits = rng();
    }
    id.chars_[i] = kHex[bits & 0xf];
    bits >>= 4;
  }
  return id;
}

}  // namespace infergate::gateway
