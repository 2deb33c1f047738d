#include "bench/request_headers.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace infergate::bench {
namespace {

std::string refusal(const std::string& text) {
  try {
    (void)parse_header_option(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(HeaderOption, NameAndValueWithoutTheBlanksAroundIt) {
  const HeaderField field = parse_header_option("api-key:  abc def\t");
  EXPECT_EQ(field.name, "api-key");
  EXPECT_EQ(field.value, "abc def");
  EXPECT_EQ(parse_header_option("X-Empty:").value, "");
  EXPECT_EQ(parse_header_option("User-Agent: my-client/2").name, "User-Agent");
  EXPECT_EQ(parse_header_option("X-Route: a:b").value, "a:b");  // only the first ':' ends the name
}

TEST(HeaderOption, MalformedFieldsAreRefused) {
  EXPECT_NE(refusal("api-key abc").find("no ':'"), std::string::npos);
  EXPECT_NE(refusal(": abc").find("a header's name"), std::string::npos);
  EXPECT_NE(refusal("api key: abc").find("'api key': a header's name"), std::string::npos);
  EXPECT_NE(refusal("X-A: b\r\nX-Injected: c").find("control character"), std::string::npos);
  EXPECT_NE(refusal(std::string("X-A: b\0c", 8)).find("control character"), std::string::npos);
}

TEST(HeaderOption, FieldsTheBenchmarkSetsAreRefusedWhateverTheirCase) {
  EXPECT_EQ(refusal("AUTHORIZATION: Bearer k"),
            "AUTHORIZATION is set from --api-key (or $OPENAI_API_KEY, or a --target's api_key_env)");
  EXPECT_EQ(refusal("x-infergate-trace: 1"), "x-infergate-trace is set by --trace");
  for (const char* framing : {"Host: h", "Content-Length: 3", "transfer-encoding: chunked", "Connection: close",
                              "Content-Type: text/plain", "Accept: */*", "Expect: 100-continue"}) {
    EXPECT_FALSE(refusal(framing).empty()) << framing;
  }
}

TEST(HeaderOption, AMessageNeverRepeatsTheValue) {
  for (const char* text : {"Authorization: sk-secret", "api key: sk-secret", "X-Key: sk-secret\n"}) {
    const std::string message = refusal(text);
    EXPECT_FALSE(message.empty()) << text;
    EXPECT_EQ(message.find("sk-secret"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace infergate::bench
