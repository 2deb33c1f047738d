#include "core/frame_pool.hpp"

#include <array>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define INFERGATE_POISON(pointer, size) ASAN_POISON_MEMORY_REGION(pointer, size)
#define INFERGATE_UNPOISON(pointer, size) ASAN_UNPOISON_MEMORY_REGION(pointer, size)
#else
#define INFERGATE_POISON(pointer, size) static_cast<void>(0)
#define INFERGATE_UNPOISON(pointer, size) static_cast<void>(0)
#endif

namespace infergate::frame_pool {
namespace {

constexpr std::size_t kClasses = kLargestPooled / kClassBytes;

struct FreeBlock {
  FreeBlock* next;
};

// Trivially destructible, so that it can still be read while the thread's other thread_local
// objects are destroyed (a frame may be freed by one of their destructors).
struct Lists {
  std::array<FreeBlock*, kClasses> heads;
  std::size_t cached_bytes;
  std::uint64_t allocations;
  std::uint64_t reused;
  bool closer_registered;
  bool closed;
};
constinit thread_local Lists lists{};

std::size_t class_of(std::size_t size) {
  return size == 0 ? 0 : (size - 1) / kClassBytes;
}

void drain(Lists& l) {
  for (std::size_t c = 0; c < kClasses; ++c) {
    while (FreeBlock* block = l.heads[c]) {
      INFERGATE_UNPOISON(block, (c + 1) * kClassBytes);
      l.heads[c] = block->next;
      std::free(block);
    }
  }
  l.cached_bytes = 0;
}

struct Closer {
  Closer() = default;
  Closer(const Closer&) = delete;
  Closer& operator=(const Closer&) = delete;
  ~Closer() {
    drain(lists);
    lists.closed = true;
  }
};

// The thread's lists are emptied when it exits: registered by the first frame it pools.
void register_closer() {
  [[maybe_unused]] thread_local Closer closer;
  lists.closer_registered = true;
}

void* fresh(std::size_t bytes, std::size_t align) {
  void* pointer = align <= alignof(std::max_align_t) ? std::malloc(bytes)
                                                     : std::aligned_alloc(align, (bytes + align - 1) / align * align);
  if (pointer == nullptr) {
    throw std::bad_alloc();
  }
  return pointer;
}

}  // namespace

void* allocate(std::size_t size, std::size_t align) {
  Lists& l = lists;
  ++l.allocations;
  if (size > kLargestPooled) {
    return fresh(size, align);
  }
  const std::size_t c = class_of(size);
  // A whole class's size even when it will not be pooled here: it may be freed on a thread that pools it.
  const std::size_t bytes = (c + 1) * kClassBytes;
  if (l.closed) {
    return fresh(bytes, align);
  }
  FreeBlock* block = l.heads[c];
  // A block on the list has malloc's alignment; a stricter one gets fresh memory.
  if (block != nullptr && align <= alignof(std::max_align_t)) {
    INFERGATE_UNPOISON(block, bytes);
    l.heads[c] = block->next;
    l.cached_bytes -= bytes;
    ++l.reused;
    return block;
  }
  if (!l.closer_registered) {
    register_closer();
  }
  return fresh(bytes, align);
}

void release(void* pointer, std::size_t size) noexcept {
  Lists& l = lists;
  if (pointer == nullptr) {
    return;
  }
  const std::size_t c = class_of(size);
  const std::size_t bytes = (c + 1) * kClassBytes;
  if (size > kLargestPooled || l.closed || !l.closer_registered || l.cached_bytes + bytes > kMaxCachedBytes) {
    std::free(pointer);
    return;
  }
  auto* block = static_cast<FreeBlock*>(pointer);
  block->next = l.heads[c];
  l.heads[c] = block;
  l.cached_bytes += bytes;
  INFERGATE_POISON(block, bytes);
}

Stats this_thread_stats() {
  return Stats{lists.allocations, lists.reused, lists.cached_bytes};
}

}  // namespace infergate::frame_pool
