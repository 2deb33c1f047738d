#include "core/base64.hpp"

#include <gtest/gtest.h>

#include <string_view>

namespace infergate {
namespace {

std::string encode_text(std::string_view text) {
  return base64_encode({reinterpret_cast<const unsigned char*>(text.data()), text.size()});
}

TEST(Base64, Rfc4648TestVectors) {
  EXPECT_EQ(encode_text(""), "");
  EXPECT_EQ(encode_text("f"), "Zg==");
  EXPECT_EQ(encode_text("fo"), "Zm8=");
  EXPECT_EQ(encode_text("foo"), "Zm9v");
  EXPECT_EQ(encode_text("foob"), "Zm9vYg==");
  EXPECT_EQ(encode_text("fooba"), "Zm9vYmE=");
  EXPECT_EQ(encode_text("foobar"), "Zm9vYmFy");
}

TEST(Base64, EveryByteValueAndTheLastTwoLetters) {
  const unsigned char high[] = {0xff, 0xfe, 0xfb};
  EXPECT_EQ(base64_encode(high), "//77");
  const unsigned char low[] = {0x00, 0x10, 0x83};
  EXPECT_EQ(base64_encode(low), "ABCD");
}

TEST(Base64, DecodedSizeCountsThePadding) {
  for (const char* text : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
    const std::string encoded = encode_text(text);
    EXPECT_EQ(base64_decoded_size(encoded), std::string_view(text).size()) << encoded;
  }
  EXPECT_EQ(base64_decoded_size("Zm9"), 0u);  // short of one group
}

}  // namespace
}  // namespace infergate
