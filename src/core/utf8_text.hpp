#pragma once
// Text from elsewhere (an upstream's error page, cut to a length) made fit for JSON, whose strings
// must be UTF-8: a JSON writer copies bytes as they are, and a line holding a stray byte is one a
// strict reader refuses whole.
#include <cstddef>
#include <string>
#include <string_view>

namespace infergate {

// `text` with each byte that neither begins nor continues a well-formed UTF-8 character (RFC 3629:
// no overlong forms, no surrogates, nothing past U+10FFFF) replaced by U+FFFD, cut at a character's
// boundary to at most `most` bytes of `text`.
std::string valid_utf8(std::string_view text, std::size_t most = std::string_view::npos);

}  // namespace infergate
