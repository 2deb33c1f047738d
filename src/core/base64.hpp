#pragma once
// Base64 (RFC 4648, standard alphabet, padded): how the OpenAI embeddings API sends vectors when a
// client asks for encoding_format "base64", as the openai SDKs do by default.
#include <span>
#include <string>

namespace infergate {

[[nodiscard]] std::string base64_encode(std::span<const unsigned char> bytes);

}  // namespace infergate
