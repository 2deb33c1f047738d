#include "gateway/packed_rows.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace infergate::gateway {
namespace {

LedgerRow row_numbered(int i, const std::string& long_text) {
  LedgerRow row;
  row.ts_ms = 1'764'700'000'000 + i;
  row.request_id = i % 3 == 0 ? std::string_view(long_text) : std::string_view("req-7");
  row.key_id = i % 4 == 0 ? std::string_view() : std::string_view("key-1");
  row.model = "llama-3.1-8b";
  row.upstream_model = i % 2 == 0 ? "meta-llama/Llama-3.1-8B-Instruct" : "";
  row.provider = "vllm-local";
  row.prompt_tokens = i * 7;
  row.completion_tokens = i % 5 == 0 ? std::numeric_limits<std::int64_t>::max() : i;
  row.token_source = i % 2 == 0 ? "usage" : "estimate";
  row.cost_usd = i * 1.25e-5;
  row.status = i % 2 == 0 ? 200 : 499;
  if (i % 3 != 1) {
    row.ttft_ms = i * 0.125;
  }
  row.duration_ms = i * 3.5;
  return row;
}

TEST(PackedRows, EveryRowReadsBackAsItWasAppendedInOrder) {
  const std::string long_text(70'000, 'r');  // a text longer than 16 bits can count
  PackedRows packed;
  std::vector<LedgerRow> appended;
  for (int i = 0; i < 50; ++i) {
    appended.push_back(row_numbered(i, long_text));
    packed.append(appended.back());
  }
  EXPECT_EQ(packed.rows(), 50U);
  std::size_t at = 0;
  LedgerRow row;
  for (const LedgerRow& expected : appended) {
    ASSERT_TRUE(packed.next(at, row));
    EXPECT_EQ(row, expected);
  }
  EXPECT_FALSE(packed.next(at, row));
}

TEST(PackedRows, TextsOfEveryShortLengthCopyEveryByte) {
  std::string source;
  for (int i = 0; i < 48; ++i) {
    source.push_back(static_cast<char>('a' + i % 26));
  }
  PackedRows packed;
  for (std::size_t n = 0; n <= 40; ++n) {
    LedgerRow row;
    // Each text starts somewhere else in the source, so no two neighbouring bytes are equal.
    row.request_id = std::string_view(source).substr(1, n);
    row.key_id = std::string_view(source).substr(7, n);
    row.provider = std::string_view(source).substr(0, 40 - n);
    packed.append(row);
  }
  std::size_t at = 0;
  LedgerRow read;
  for (std::size_t n = 0; n <= 40; ++n) {
    ASSERT_TRUE(packed.next(at, read));
    EXPECT_EQ(read.request_id, std::string_view(source).substr(1, n)) << n;
    EXPECT_EQ(read.key_id, std::string_view(source).substr(7, n)) << n;
    EXPECT_EQ(read.provider, std::string_view(source).substr(0, 40 - n)) << n;
  }
  EXPECT_FALSE(packed.next(at, read));
}

TEST(PackedRows, AMovedFromBufferIsEmptyAndTheMovedToOneHoldsTheRows) {
  const std::string text = "moved";
  PackedRows from;
  from.append(row_numbered(2, text));
  PackedRows to = std::move(from);
  EXPECT_TRUE(from.empty());  // NOLINT(bugprone-use-after-move): what a move leaves is the point
  std::size_t at = 0;
  LedgerRow read;
  EXPECT_FALSE(from.next(at, read));  // NOLINT(bugprone-use-after-move)
  ASSERT_TRUE(to.next(at, read));
  EXPECT_EQ(read, row_numbered(2, text));
}

TEST(PackedRows, TheTextsAreCopiesNotViewsOfTheRowHandedOver) {
  std::string id = "req-original";
  LedgerRow row;
  row.request_id = id;
  PackedRows packed;
  packed.append(row);
  id.assign("req-changed!");
  std::size_t at = 0;
  LedgerRow read;
  ASSERT_TRUE(packed.next(at, read));
  EXPECT_EQ(read.request_id, "req-original");
  EXPECT_NE(read.request_id.data(), id.data());
}

TEST(PackedRows, ClearEmptiesAndTheBufferTakesNewRows) {
  const std::string text = "x";
  PackedRows packed;
  EXPECT_TRUE(packed.empty());
  packed.append(row_numbered(1, text));
  packed.clear();
  EXPECT_TRUE(packed.empty());
  std::size_t at = 0;
  LedgerRow read;
  EXPECT_FALSE(packed.next(at, read));
  packed.append(row_numbered(3, text));
  ASSERT_TRUE(packed.next(at, read));
  EXPECT_EQ(read, row_numbered(3, text));
  EXPECT_FALSE(packed.next(at, read));
}

}  // namespace
}  // namespace infergate::gateway
