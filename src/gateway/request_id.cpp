#include "gateway/request_id.hpp"

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

// Eight hex digits of the low 32 bits of `bits`, written at `out` with no table and no loop: each
// nibble is spread to a byte of its own, then the bytes become digits together. A nibble n is
// '0' + n, and 'a' - '0' - 10 = 39 more when n > 9, which is when n + 6 carries into bit 4. The
// nibbles come out in no particular order, which costs a random id nothing.
void write_hex8(char* out, std::uint64_t bits) {
  std::uint64_t v = bits & 0xffff'ffffU;
  v = (v | (v << 16)) & 0x0000'ffff'0000'ffffU;
  v = (v | (v << 8)) & 0x00ff'00ff'00ff'00ffU;
  v = (v | (v << 4)) & 0x0f0f'0f0f'0f0f'0f0fU;
  const std::uint64_t over_nine = ((v + 0x0606'0606'0606'0606U) >> 4) & 0x0101'0101'0101'0101U;
  v += 0x3030'3030'3030'3030U + over_nine * 39;
  std::memcpy(out, &v, sizeof v);
}

}  // namespace

RequestId RequestId::generate() {
  thread_local Rng rng(std::random_device{}() ^ (static_cast<std::uint64_t>(std::random_device{}()) << 32));
  RequestId id;
  id.size_ = 32;
  for (std::size_t half = 0; half < 2; ++half) {
    const std::uint64_t bits = rng();
    write_hex8(&id.chars_[16 * half], bits);
    write_hex8(&id.chars_[16 * half + 8], bits >> 32);
  }
  return id;
}

}  // namespace infergate::gateway
