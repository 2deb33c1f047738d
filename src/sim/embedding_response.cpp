#include "sim/embedding_response.hpp"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <iterator>

#include "core/base64.hpp"
#include "core/random.hpp"

namespace infergate::sim {

std::vector<float> embedding_vector(std::uint64_t hash, std::size_t dims) {
  Rng rng(hash);
  std::vector<double> raw(dims);
  double squares = 0;
  for (double& v : raw) {
    v = 2 * rng.uniform() - 1;
    squares += v * v;
  }
  const double norm = squares > 0 ? std::sqrt(squares) : 1;
  std::vector<float> out(dims);
  for (std::size_t i = 0; i < dims; ++i) {
    out[i] = static_cast<float>(raw[i] / norm);
  }
  return out;
}

std::string embedding_response(const openai::EmbeddingRequest& request, std::string_view json_model, std::size_t dims,
                               std::int64_t prompt_tokens) {
  std::string body = R"({"object":"list","data":[)";
  auto out = std::back_inserter(body);
  for (std::size_t i = 0; i < request.inputs.size(); ++i) {
    const std::vector<float> vector = embedding_vector(request.inputs[i].hash, dims);
    fmt::format_to(out, R"({}{{"object":"embedding","index":{},"embedding":)", i == 0 ? "" : ",", i);
    if (request.base64) {
      // Little-endian float32, as OpenAI sends it: the bytes of the floats on the hosts we build for.
      static_assert(std::endian::native == std::endian::little);
      std::vector<unsigned char> bytes(vector.size() * sizeof(float));
      std::memcpy(bytes.data(), vector.data(), bytes.size());
      fmt::format_to(out, "\"{}\"}}", base64_encode(bytes));
    } else {
      fmt::format_to(out, "[{}]}}", fmt::join(vector, ","));
    }
  }
  fmt::format_to(out, R"(],"model":{},"usage":{{"prompt_tokens":{},"total_tokens":{}}}}})", json_model, prompt_tokens,
                 prompt_tokens);
  return body;
}

}  // namespace infergate::sim
