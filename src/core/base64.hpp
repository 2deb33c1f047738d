#pragma once
// Base64 (RFC 4648, standard alphabet, padded): how the OpenAI embeddings API sends vectors when a
// client asks for encoding_format "base64", as the openai SDKs do by default.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace infergate {

[[nodiscard]] std::string base64_encode(std::span<const unsigned char> bytes);

// How many bytes a padded text decodes to (three per four letters, less the padding), without
// decoding it; 0 for a text shorter than one group.
[[nodiscard]] std::size_t base64_decoded_size(std::string_view text);

}  // namespace infergate
