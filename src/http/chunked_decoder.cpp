#include "http/chunked_decoder.hpp"

#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <cstring>

#include "core/hex_digit.hpp"

namespace infergate::http {

namespace bhttp = boost::beast::http;

namespace {

// Beyond these an extension or trailer line is an attack, not a message.
constexpr std::size_t kMaxLineBytes = 4096;
constexpr int kMaxSizeDigits = 15;

}  // namespace

ChunkedDecoder::Step ChunkedDecoder::decode(const char* in, std::size_t size, char* out) {
  Step step;
  std::size_t i = 0;
  auto fail = [&](bhttp::error e) {
    step.consumed = i;
    step.error = e;
    return step;
  };
  while (i < size && state_ != State::done) {
    const char c = in[i];
    switch (state_) {
      case State::size: {
        const int v = hex_value(c);
        if (v >= 0) {
          if (++digits_ > kMaxSizeDigits) {
            return fail(bhttp::error::bad_chunk);
          }
          remaining_ = remaining_ * 16 + static_cast<std::uint64_t>(v);
        } else if (digits_ > 0 && c == '\r') {
          state_ = State::size_lf;
        } else if (digits_ > 0 && (c == ';' || c == ' ' || c == '\t')) {
          state_ = State::extension;
          line_bytes_ = 0;
        } else {
          return fail(bhttp::error::bad_chunk);
        }
        ++i;
        break;
      }
      case State::extension:
        if (c == '\r') {
          state_ = State::size_lf;
        } else if (c == '\n' || ++line_bytes_ > kMaxLineBytes) {
          return fail(bhttp::error::bad_chunk_extension);
        }
        ++i;
        break;
      case State::size_lf:
        if (c != '\n') {
          return fail(bhttp::error::bad_line_ending);
        }
        ++i;
        digits_ = 0;
        state_ = remaining_ == 0 ? State::trailer_start : State::data;
        break;
      case State::data: {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, size - i));
        if (out + step.produced != in + i) {
          std::memmove(out + step.produced, in + i, n);
        }
        step.produced += n;
        remaining_ -= n;
        i += n;
        if (remaining_ == 0) {
          state_ = State::data_cr;
        }
        break;
      }
      case State::data_cr:
        if (c != '\r') {
          return fail(bhttp::error::bad_chunk);
        }
        state_ = State::data_lf;
        ++i;
        break;
      case State::data_lf:
        if (c != '\n') {
          return fail(bhttp::error::bad_line_ending);
        }
        state_ = State::size;
        ++i;
        break;
      case State::trailer_start:
        if (c == '\n') {
          return fail(bhttp::error::bad_line_ending);
        }
        state_ = c == '\r' ? State::last_lf : State::trailer;
        line_bytes_ = 0;
        ++i;
        break;
      case State::trailer:
        if (c == '\r') {
          state_ = State::trailer_lf;
        } else if (c == '\n' || ++line_bytes_ > kMaxLineBytes) {
          return fail(bhttp::error::bad_field);
        }
        ++i;
        break;
      case State::trailer_lf:
        if (c != '\n') {
          return fail(bhttp::error::bad_line_ending);
        }
        state_ = State::trailer_start;
        ++i;
        break;
      case State::last_lf:
        if (c != '\n') {
          return fail(bhttp::error::bad_line_ending);
        }
        state_ = State::done;
        ++i;
        break;
      case State::done:
        break;
    }
  }
  step.consumed = i;
  return step;
}

}  // namespace infergate::http
