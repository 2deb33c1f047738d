#include "gateway/request_id.hpp"

#include <random>

#include "core/random.hpp"

namespace infergate::gateway {

bool acceptable_request_id(std::string_view id) {
  if (id.empty() || id.size() > 128) {
    return false;
  }
  for (char c : id) {
    if (c <= ' ' || c > '~') {
      return false;
    }
  }
  return true;
}

std::string new_request_id() {
  thread_local Rng rng(std::random_device{}() ^ (static_cast<std::uint64_t>(std::random_device{}()) << 32));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(32, '0');
  std::uint64_t bits = rng();
  for (std::size_t i = 0; i < id.size(); ++i) {
    if (i == 16) {
      bits = rng();
    }
    id[i] = kHex[bits & 0xf];
    bits >>= 4;
  }
  return id;
}

}  // namespace infergate::gateway
