#pragma once
// A forward reading of JSON text that knows, 64 bytes at a time and as bit masks, where its strings
// are and where the brackets and braces outside them are, so that a reader can pass over a string or
// a whole array or object with a few bit scans. A chat answer's top level holds a few short strings
// and two containers of a few hundred bytes: read this way, the bytes inside them cost a share of
// one vector pass, not a search (and its setup) per string they hold.
//
// Strings are found as JSON has them: a quote starts or ends one unless a backslash escapes it, and
// a backslash escapes the byte after it unless it is escaped itself. A byte-by-byte reader that
// takes a backslash outside a string as an ordinary byte (as no valid JSON has one) can find other
// strings than these from there on; stray_backslash() says whether the text read so far had one.
//
// The text is read in order, up to 1 KiB at a time, where it lies and never past its end.
// Questions must go forward: each is about a place at or after the answer to the one before. One
// about a place already left behind (its window read over) is answered nullptr, not guessed.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace infergate::openai {

class JsonMarks {
 public:
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): window_ is written before it is read.
  explicit JsonMarks(std::string_view text) : text_(text) {}

  [[nodiscard]] const char* end() const { return text_.data() + text_.size(); }

  // From just inside a string (after its opening quote): past its closing quote, or nullptr when
  // the text ends first.
  const char* past_string(const char* p) {
    auto at = static_cast<std::size_t>(p - text_.data());
    while (reach(at)) {
      const std::size_t offset = at - window_start_;
      if (const std::uint64_t ahead = window_[offset / 64].quotes >> (offset % 64); ahead != 0) {
        return p + std::countr_zero(ahead) + 1;
      }
      p += 64 - offset % 64;
      at += 64 - offset % 64;
    }
    return nullptr;
  }

  // At an opening bracket or brace outside any string: past the one that closes it, or nullptr.
  const char* past_container(const char* p) {
    auto at = static_cast<std::size_t>(p - text_.data());
    int depth = 0;
    while (reach(at)) {
      const std::size_t offset = at - window_start_;
      const Block& block = window_[offset / 64];
      const auto from = static_cast<unsigned>(offset % 64);
      for (std::uint64_t marks = (block.opens | block.closes) >> from; marks != 0; marks &= marks - 1) {
        const std::uint64_t mark = marks & (~marks + 1);
        if (((block.opens >> from) & mark) != 0) {
          ++depth;
        } else if (--depth == 0) {
          return p + std::countr_zero(mark) + 1;
        }
      }
      p += 64 - from;
      at += 64 - from;
    }
    return nullptr;
  }

  // Whether a backslash stood outside every string in the bytes read so far.
  [[nodiscard]] bool stray_backslash() const { return carry_.stray_backslashes != 0; }

  // 64 bytes, bit i for byte i: the quotes that start or end a string, and the brackets and braces
  // outside strings. Without initialisers: a reader's window is written before it is read, and
  // clearing it would cost as much as reading a short answer's marks.
  struct Block {
    std::uint64_t quotes;
    std::uint64_t opens;
    std::uint64_t closes;
  };
  // What one block tells the next.
  struct Carry {
    std::uint64_t escaped = 0;            // 1: its first byte is escaped
    std::uint64_t inside = 0;             // all ones: it starts inside a string
    std::uint64_t stray_backslashes = 0;  // those outside strings, every block ORed in: none is 0
  };
  static constexpr std::size_t kWindow = 16;  // blocks read at a time

 private:
  // Moves the window on to the blocks that hold offset `at`; false past the end, or before the
  // window, whose blocks' carries are gone.
  bool reach(std::size_t at) {
    if (at >= text_.size() || at < window_start_) {
      return false;
    }
    while (at >= window_end_) {
      read_window();
    }
    return true;
  }
  void read_window();

  std::string_view text_;
  std::size_t window_start_ = 0;
  std::size_t window_end_ = 0;
  Carry carry_;
  Block window_[kWindow];
};

// Each width's reading of the blocks from `at` (`left` bytes, the last block padded), at most
// JsonMarks::kWindow of them, into `out`; the number read. Exposed for the test that compares them
// with a byte-by-byte reading: 16 bytes at a time (8 without SSE2), and 32 where the CPU has AVX2
// and carry-less multiplication (has_read_blocks_wide(); the narrow reading where it has not).
namespace json_marks_detail {
std::size_t read_blocks_narrow(const char* at, std::size_t left, JsonMarks::Carry& carry, JsonMarks::Block* out);
bool has_read_blocks_wide();
std::size_t read_blocks_wide(const char* at, std::size_t left, JsonMarks::Carry& carry, JsonMarks::Block* out);
}  // namespace json_marks_detail

}  // namespace infergate::openai
