#pragma once
// The most pieces one gathered chunk of a streamed response takes: the SSE relay cuts a read into
// at most this many views, and the server's chunk write keeps a fixed array of buffers for them.
// Apart from server.hpp so that the relay, pure logic on bytes, does not pull in Asio.
#include <cstddef>

namespace infergate::http {

inline constexpr std::size_t kMaxChunkPieces = 8;

}  // namespace infergate::http
