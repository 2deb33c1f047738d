#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "doctor/endpoint.hpp"

namespace infergate::doctor {
namespace {

std::string doctor_refusal(const std::string& text) {
  try {
    (void)parse_header_option(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(DoctorHeader, FieldsTheChecksSetAreRefusedAndOthersKept) {
  EXPECT_EQ(doctor_refusal("authorization: Bearer sk-1"), "authorization is set from --api-key (or $OPENAI_API_KEY)");
  EXPECT_EQ(doctor_refusal("Content-Type: text/plain"), "Content-Type is application/json, set by each check");
  EXPECT_EQ(doctor_refusal("Host: elsewhere"), "Host frames the request; it is set for you");
  const http::HeaderField kept = parse_header_option("User-Agent: probe/1");
  EXPECT_EQ(kept.name, "User-Agent");
  EXPECT_EQ(kept.value, "probe/1");
}

}  // namespace
}  // namespace infergate::doctor
