#include "gateway/request_id.hpp"

#include <array>
#include <cstdint>
#include <cstring>
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

namespace {

// Each byte's two hex digits, so that an id is written a byte, not a digit, at a time.
constexpr auto kHexPairs = [] {
  constexpr char kHex[] = "0123456789abcdef";
  std::array<char, 512> pairs{};
  for (std::size_t b = 0; b < 256; ++b) {
    pairs[2 * b] = kHex[b >> 4];
    pairs[2 * b + 1] = kHex[b & 0xf];
  }
  return pairs;
}();

}  // namespace

RequestId RequestId::generate() {
  thread_local Rng rng(std::random_device{}() ^ (static_cast<std::uint64_t>(std::random_device{}()) << 32));
  RequestId id;
  id.size_ = 32;
  for (std::size_t half = 0; half < 2; ++half) {
    std::uint64_t bits = rng();
    for (std::size_t i = 0; i < 8; ++i) {
      std::memcpy(&id.chars_[16 * half + 2 * i], &kHexPairs[2 * (bits & 0xff)], 2);
      bits >>= 8;
    }
  }
  return id;
}

}  // namespace infergate::gateway
