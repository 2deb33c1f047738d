#pragma once
// The bytes a connection has read and not yet used: one allocation, reused, grown only when a
// message needs more room. Left uninitialised, so a connection that only ever fills its first
// page costs one page of memory.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>

namespace infergate::http {

class ReadBuffer {
 public:
  explicit ReadBuffer(std::size_t capacity) : bytes_(new char[capacity]), capacity_(capacity) {}

  [[nodiscard]] char* data() { return bytes_.get() + begin_; }
  [[nodiscard]] const char* data() const { return bytes_.get() + begin_; }
  [[nodiscard]] std::size_t size() const { return end_ - begin_; }
  [[nodiscard]] std::size_t capacity() const { return capacity_; }

  // Room for at least `bytes` more after the data: the data moves to the front first, and the
  // buffer grows only if that is not enough. Moves invalidate pointers into the data.
  std::span<char> prepare(std::size_t bytes) {
    if (capacity_ - end_ < bytes && begin_ > 0) {
      std::memmove(bytes_.get(), bytes_.get() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (capacity_ - end_ < bytes) {
      const std::size_t grown = std::max(capacity_ * 2, end_ + bytes);
      std::unique_ptr<char[]> bigger(new char[grown]);
      std::memcpy(bigger.get(), bytes_.get(), end_);
      bytes_ = std::move(bigger);
      capacity_ = grown;
    }
    return {bytes_.get() + end_, capacity_ - end_};
  }
  void commit(std::size_t bytes) { end_ += bytes; }

  // Drops bytes from the front; an emptied buffer starts again at its beginning unless
  // `keep_place` (a read into the room after the data is in flight: its bytes land there).
  void consume(std::size_t bytes, bool keep_place = false) {
    begin_ += bytes;
    if (begin_ == end_ && !keep_place) {
      begin_ = end_ = 0;
    }
  }
  // Drops bytes from the back (decoded data that shrank in place).
  void shrink(std::size_t bytes) { end_ -= bytes; }

 private:
  std::unique_ptr<char[]> bytes_;
  std::size_t capacity_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

}  // namespace infergate::http
