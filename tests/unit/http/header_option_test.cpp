#include "http/header_option.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace infergate::http {
namespace {

constexpr OwnedHeader kOwned[] = {{"authorization", "is set from --api-key"}};

std::string option_refusal(const std::string& text) {
  try {
    (void)parse_header_option(text, kOwned);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(HeaderOptionParse, FramingFieldsAndTheCallersOwnAreRefusedWhateverTheirCase) {
  EXPECT_EQ(option_refusal("TRANSFER-ENCODING: chunked"), "TRANSFER-ENCODING frames the request; it is set for you");
  EXPECT_EQ(option_refusal("Keep-Alive: 5"), "Keep-Alive frames the request; it is set for you");
  EXPECT_EQ(option_refusal("Authorization: Bearer k"), "Authorization is set from --api-key");
  EXPECT_EQ(parse_header_option("Authorization: Bearer k", {}).value, "Bearer k");  // owned by this caller only
  EXPECT_EQ(parse_header_option("api-key: k", kOwned).name, "api-key");
}

}  // namespace
}  // namespace infergate::http
