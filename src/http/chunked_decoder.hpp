#pragma once
// Decodes a chunked message body (RFC 9112 section 7.1) in place: chunk data is moved down over
// the framing before it, so the decoded body comes out contiguous in the buffer it arrived in.
#include <boost/system/error_code.hpp>

#include <cstddef>
#include <cstdint>

namespace infergate::http {

class ChunkedDecoder {
 public:
  struct Step {
    std::size_t consumed = 0;  // input bytes used; all of them unless the body ended
    std::size_t produced = 0;  // decoded bytes written at `out`
    boost::system::error_code error;
  };

  // Decodes `in[0, size)` to `out`, which may be `in` itself or anywhere before it (never after).
  // Framing cut by the end of the input is remembered, so the input can end anywhere.
  Step decode(const char* in, std::size_t size, char* out);

  // True once the last chunk and the trailer section have been read.
  [[nodiscard]] bool done() const { return state_ == State::done; }

  void reset() { *this = ChunkedDecoder{}; }

 private:
  enum class State : std::uint8_t {
    size,
    extension,
    size_lf,
    data,
    data_cr,
    data_lf,
    trailer_start,
    trailer,
    trailer_lf,
    last_lf,
    done
  };
  State state_ = State::size;
  std::uint64_t remaining_ = 0;  // chunk size being read, then data bytes left in the chunk
  int digits_ = 0;
  std::size_t line_bytes_ = 0;  // of the extension or trailer line being read, to bound them
};

}  // namespace infergate::http
