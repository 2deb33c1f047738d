#pragma once
// A hash for unordered containers keyed by std::string that are searched with a string_view
// (a view into a request), so that a lookup builds no string. The gateway's maps hold ids and
// model names of a dozen bytes, looked up several times per request: std::hash (MurmurHash, a
// byte loop at each end) takes about 90 instructions for one; this one reads such a text as two
// overlapping words and mixes them with one multiplication. It is not meant to resist chosen
// collisions: every map that uses it is filled from configuration or the key store, never from
// what a client sends.
#include <cstddef>
#include <string_view>

namespace infergate {

std::size_t hash_text(std::string_view text);

struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const { return hash_text(text); }
};

}  // namespace infergate
