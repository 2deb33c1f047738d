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

TEST(HeaderOptionAppend, TheToolsAgentGoesUnlessTheUserGaveOne) {
  const std::vector<HeaderField> route{{"X-Route", "blue"}};
  std::vector<Header> out{{"Accept", "application/json"}};
  append_header_fields(route, "infergate-doctor", out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].name, "X-Route");
  EXPECT_EQ(out[1].value, "blue");
  EXPECT_EQ(out[2].name, "User-Agent");
  EXPECT_EQ(out[2].value, "infergate-doctor");

  const std::vector<HeaderField> own{{"user-agent", "probe/1"}, {"X-Route", "blue"}};
  std::vector<Header> replaced;
  append_header_fields(own, "infergate-doctor", replaced);
  ASSERT_EQ(replaced.size(), 2u);
  EXPECT_EQ(replaced[0].value, "probe/1");
  EXPECT_EQ(replaced[1].name, "X-Route");
}

}  // namespace
}  // namespace infergate::http
