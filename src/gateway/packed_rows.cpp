#include "gateway/packed_rows.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

namespace infergate::gateway {

namespace {

// A row's fixed part; its six texts follow it, in this order, at the sizes it gives.
struct Fixed {
  std::int64_t ts_ms;
  std::int64_t prompt_tokens;
  std::int64_t completion_tokens;
  double cost_usd;
  double ttft_ms;
  double duration_ms;
  std::int32_t status;
  std::int32_t has_ttft;
  std::array<std::uint32_t, 6> sizes;
};

constexpr std::size_t kFirstCapacity = std::size_t{64} << 10;

constexpr auto texts(const LedgerRow& row) {
  return std::array{row.request_id, row.key_id, row.model, row.upstream_model, row.provider, row.token_source};
}

template <class Word>
void copy_word(char* out, const char* in) {
  Word w;
  std::memcpy(&w, in, sizeof(w));
  std::memcpy(out, &w, sizeof(w));
}

// Most of a row's texts (names, ids) are at most 16 bytes: two words, which may overlap, in place
// of a call to memcpy each.
char* put(char* out, std::string_view text) {
  const char* in = text.data();
  const std::size_t n = text.size();
  if (n > 16) {
    std::memcpy(out, in, n);
  } else if (n >= 8) {
    copy_word<std::uint64_t>(out, in);
    copy_word<std::uint64_t>(out + n - 8, in + n - 8);
  } else if (n >= 4) {
    copy_word<std::uint32_t>(out, in);
    copy_word<std::uint32_t>(out + n - 4, in + n - 4);
  } else if (n > 0) {
    out[0] = in[0];
    out[n / 2] = in[n / 2];
    out[n - 1] = in[n - 1];
  }
  return out + n;
}

}  // namespace

PackedRows::PackedRows(PackedRows&& other) noexcept
    : bytes_(std::move(other.bytes_)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)),
      rows_(std::exchange(other.rows_, 0)) {}

PackedRows& PackedRows::operator=(PackedRows&& other) noexcept {
  bytes_ = std::move(other.bytes_);
  size_ = std::exchange(other.size_, 0);
  capacity_ = std::exchange(other.capacity_, 0);
  rows_ = std::exchange(other.rows_, 0);
  return *this;
}

char* PackedRows::room(std::size_t more) {
  if (size_ + more > capacity_) {
    const std::size_t capacity = std::max({kFirstCapacity, 2 * capacity_, size_ + more});
    auto bytes = std::make_unique_for_overwrite<char[]>(capacity);
    if (size_ > 0) {
      std::memcpy(bytes.get(), bytes_.get(), size_);
    }
    bytes_ = std::move(bytes);
    capacity_ = capacity;
  }
  return bytes_.get() + size_;
}

void PackedRows::append(const LedgerRow& row) {
  const auto parts = texts(row);
  Fixed fixed{row.ts_ms,
              row.prompt_tokens,
              row.completion_tokens,
              row.cost_usd,
              row.ttft_ms.value_or(0.0),
              row.duration_ms,
              row.status,
              row.ttft_ms.has_value() ? 1 : 0,
              {}};
  std::size_t size = sizeof(Fixed);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    // A text is a request id, a key id or a name from the config: far below 4 GiB.
    fixed.sizes[i] = static_cast<std::uint32_t>(parts[i].size());
    size += parts[i].size();
  }
  char* out = room(size);
  std::memcpy(out, &fixed, sizeof(Fixed));
  out += sizeof(Fixed);
  for (const std::string_view part : parts) {
    out = put(out, part);
  }
  size_ += size;
  ++rows_;
}

bool PackedRows::next(std::size_t& at, LedgerRow& row) const {
  if (at >= size_) {
    return false;
  }
  Fixed fixed{};
  std::memcpy(&fixed, bytes_.get() + at, sizeof(Fixed));
  at += sizeof(Fixed);
  std::array<std::string_view, 6> parts;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    parts[i] = std::string_view(bytes_.get() + at, fixed.sizes[i]);
    at += fixed.sizes[i];
  }
  row.ts_ms = fixed.ts_ms;
  row.request_id = parts[0];
  row.key_id = parts[1];
  row.model = parts[2];
  row.upstream_model = parts[3];
  row.provider = parts[4];
  row.token_source = parts[5];
  row.prompt_tokens = fixed.prompt_tokens;
  row.completion_tokens = fixed.completion_tokens;
  row.cost_usd = fixed.cost_usd;
  row.status = fixed.status;
  row.ttft_ms = fixed.has_ttft != 0 ? std::optional<double>(fixed.ttft_ms) : std::nullopt;
  row.duration_ms = fixed.duration_ms;
  return true;
}

void PackedRows::clear() {
  size_ = 0;
  rows_ = 0;
}

}  // namespace infergate::gateway
