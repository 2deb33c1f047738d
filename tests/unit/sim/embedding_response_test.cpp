#include "sim/embedding_response.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <cmath>
#include <cstring>

namespace infergate::sim {
namespace {

double squared_norm(const std::vector<float>& v) {
  double sum = 0;
  for (const float x : v) {
    sum += static_cast<double>(x) * x;
  }
  return sum;
}

std::vector<unsigned char> decode_base64_for_test(std::string_view text) {
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<unsigned char> out;
  unsigned bits = 0;
  int count = 0;
  for (const char c : text) {
    if (c == '=') {
      break;
    }
    bits = (bits << 6U) | static_cast<unsigned>(kAlphabet.find(c));
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<unsigned char>((bits >> static_cast<unsigned>(count)) & 0xffU));
    }
  }
  return out;
}

TEST(EmbeddingResponse, VectorsAreUnitLengthAndFollowTheirInput) {
  const std::vector<float> a = embedding_vector(42, 5376);
  EXPECT_EQ(a.size(), 5376u);
  EXPECT_NEAR(squared_norm(a), 1.0, 1e-5);
  EXPECT_EQ(embedding_vector(42, 5376), a);
  const std::vector<float> b = embedding_vector(43, 5376);
  double dot = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    dot += static_cast<double>(a[i]) * b[i];
  }
  EXPECT_LT(std::abs(dot), 0.1);  // unrelated inputs are near orthogonal
}

TEST(EmbeddingResponse, OpenAisShapeInFloatsOrBase64) {
  openai::EmbeddingRequest request;
  request.inputs = {{3, 7}, {1, 9}};
  const auto floats = boost::json::parse(embedding_response(request, R"("m")", 8, 4)).as_object();
  EXPECT_EQ(floats.at("object"), "list");
  EXPECT_EQ(floats.at("model"), "m");
  EXPECT_EQ(floats.at("usage").at("prompt_tokens"), 4);
  EXPECT_EQ(floats.at("usage").at("total_tokens"), 4);
  const auto& data = floats.at("data").as_array();
  ASSERT_EQ(data.size(), 2u);
  EXPECT_EQ(data[1].at("index"), 1);
  EXPECT_EQ(data[1].at("object"), "embedding");
  const auto& values = data[0].at("embedding").as_array();
  ASSERT_EQ(values.size(), 8u);
  const std::vector<float> expected = embedding_vector(7, 8);
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(static_cast<float>(values[i].to_number<double>()), expected[i]) << i;  // shortest round trip
  }

  request.base64 = true;
  const auto encoded = boost::json::parse(embedding_response(request, R"("m")", 8, 4)).as_object();
  const std::vector<unsigned char> bytes =
      decode_base64_for_test(encoded.at("data").as_array()[0].at("embedding").as_string());
  ASSERT_EQ(bytes.size(), 8 * sizeof(float));
  std::vector<float> decoded(8);
  std::memcpy(decoded.data(), bytes.data(), bytes.size());
  EXPECT_EQ(decoded, expected);
}

}  // namespace
}  // namespace infergate::sim
