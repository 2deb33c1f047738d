#include "sim/profile.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace infergate::sim {
namespace {

TEST(Profile, ParsesModelPrecisionHardwareAndCount) {
  const Profile p = parse_profile("llama-3.3-70b:fp8@h100x2");
  EXPECT_EQ(p.model->id, "llama-3.3-70b");
  EXPECT_EQ(p.precision->id, "fp8");
  EXPECT_EQ(p.hardware->id, "h100");
  EXPECT_EQ(p.devices, 2);
  EXPECT_EQ(p.to_string(), "llama-3.3-70b:fp8@h100x2");
  EXPECT_EQ(parse_profile("gemma-4-31b:bf16@h200").devices, 1);
  EXPECT_EQ(parse_profile("qwen2.5-7b:int4@rtx4090").hardware->id, "rtx4090");
}

TEST(Profile, ErrorsNameWhatTheCatalogOffers) {
  try {
    parse_profile("gpt-9:bf16@h100");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("known: gemma-4-31b"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_profile("gemma-4-31b@h100"), std::invalid_argument);
  EXPECT_THROW(parse_profile("gemma-4-31b:fp4@h100"), std::invalid_argument);
  EXPECT_THROW(parse_profile("gemma-4-31b:bf16@tpu"), std::invalid_argument);
  EXPECT_THROW(parse_profile("gemma-4-31b:bf16@h100x0"), std::invalid_argument);
}

TEST(Profile, AMistypedIdNamesTheOneMeant) {
  auto message = [](const char* text) {
    try {
      parse_profile(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("gema-4-31b:bf16@h100").find("unknown model 'gema-4-31b' (did you mean 'gemma-4-31b'?); known: "),
            std::string::npos);
  EXPECT_NE(message("gemma-4-31b:bf16@mi300").find("unknown hardware 'mi300' (did you mean 'mi300x'?); known: "),
            std::string::npos);
  EXPECT_NE(message("gemma-4-31b:bf16@xyz").find("unknown hardware 'xyz'; known: h100,"), std::string::npos);
}

TEST(Profile, UsesTheCatalogItIsGiven) {
  Catalog catalog = Catalog::builtin();
  catalog.add_yaml("hardware:\n  - {id: mygpu, memory_gb: 32, bandwidth_gb_s: 1000, tflops_16bit: 100}\n", "mine.yaml");
  EXPECT_EQ(parse_profile("qwen2.5-7b:int4@mygpu", catalog).hardware->memory_bytes, 32e9);
  EXPECT_THROW(parse_profile("qwen2.5-7b:int4@mygpu"), std::invalid_argument);
}

}  // namespace
}  // namespace infergate::sim
