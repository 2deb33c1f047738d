#pragma once
// Per-thread free lists for coroutine frames, in 64-byte size classes up to 2 KiB.
//
// Asio keeps up to BOOST_ASIO_RECYCLING_ALLOCATOR_CACHE_SIZE freed frames per thread and hands
// one out only when it is large enough, taking the first that is: a proxied request nests four
// or five frames of 700 to 1,000 bytes, and with sixteen requests in flight on a thread the
// cache overflowed or held the wrong sizes, so most frames went to malloc and free (about 3.5
// each per request). Here a freed frame waits on its size class's list, last in first out (so
// the next frame of that size reuses memory still in the cache), up to kMaxCachedBytes per
// thread; beyond that, and for larger frames, it goes back to malloc.
//
// A frame freed on another thread than the one it came from joins that thread's lists, as Asio's
// own cache does, once that thread has pooled a frame of its own (which registers the emptying
// of its lists at its exit); before that, and after the thread's lists are emptied, a freed frame
// goes to free(). Blocks are separate mallocs, so none belongs to a thread.
//
// The frames reach these functions through asio_frame_hook.hpp, which every translation unit
// that links infergate_core includes first.
#include <cstddef>
#include <cstdint>

namespace infergate::frame_pool {

inline constexpr std::size_t kClassBytes = 64;
inline constexpr std::size_t kLargestPooled = 2048;
inline constexpr std::size_t kMaxCachedBytes = std::size_t{1} << 20;

// Memory for a frame of `size` bytes, aligned to `align` (at most malloc's own alignment is
// pooled; a stricter one is left to aligned_alloc). Throws std::bad_alloc when there is none.
void* allocate(std::size_t size, std::size_t align);
// `pointer` came from allocate(size, ...) on any thread.
void release(void* pointer, std::size_t size) noexcept;

// This thread's figures, for tests and for telling whether a change to the request path made
// frames the pool cannot hold.
struct Stats {
  std::uint64_t allocations = 0;  // of every size
  std::uint64_t reused = 0;       // served from a free list
  std::size_t cached_bytes = 0;   // waiting on this thread's free lists now
};
[[nodiscard]] Stats this_thread_stats();

}  // namespace infergate::frame_pool
