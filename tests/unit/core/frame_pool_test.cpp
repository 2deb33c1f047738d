#include "core/frame_pool.hpp"

#include <gtest/gtest.h>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace infergate::frame_pool {
namespace {

// Each test body on a thread of its own: its lists and figures start empty.
template <class Body>
void on_new_thread(Body body) {
  std::thread thread(body);
  thread.join();
}

TEST(FramePool, ReusesAFreedBlockForAFrameOfTheSameClass) {
  on_new_thread([] {
    void* first = allocate(900, alignof(std::max_align_t));
    release(first, 900);
    EXPECT_EQ(this_thread_stats().cached_bytes, 960U);
    void* second = allocate(950, alignof(std::max_align_t));  // 897 to 960 bytes share a class
    EXPECT_EQ(second, first);
    EXPECT_EQ(this_thread_stats().reused, 1U);
    EXPECT_EQ(this_thread_stats().cached_bytes, 0U);
    release(second, 950);
  });
}

TEST(FramePool, HandsOutTheLastFreedBlockFirst) {
  on_new_thread([] {
    void* a = allocate(700, 16);
    void* b = allocate(700, 16);
    release(a, 700);
    release(b, 700);
    EXPECT_EQ(allocate(700, 16), b);
    EXPECT_EQ(allocate(700, 16), a);
    release(a, 700);
    release(b, 700);
  });
}

TEST(FramePool, KeepsClassesApart) {
  on_new_thread([] {
    void* small = allocate(64, 16);
    release(small, 64);
    void* larger = allocate(65, 16);
    EXPECT_NE(larger, small);
    EXPECT_EQ(this_thread_stats().reused, 0U);
    // The whole class is usable: a 128-byte frame in a block first given to a 65-byte one.
    std::memset(larger, 0xab, 128);
    release(larger, 65);
    EXPECT_EQ(allocate(128, 16), larger);
    release(larger, 128);
  });
}

TEST(FramePool, LeavesLargeFramesToMalloc) {
  on_new_thread([] {
    void* big = allocate(kLargestPooled + 1, 16);
    release(big, kLargestPooled + 1);
    EXPECT_EQ(this_thread_stats().cached_bytes, 0U);
    void* largest = allocate(kLargestPooled, 16);
    release(largest, kLargestPooled);
    EXPECT_EQ(this_thread_stats().cached_bytes, kLargestPooled);
  });
}

TEST(FramePool, CachesNoMoreThanItsBound) {
  on_new_thread([] {
    std::vector<void*> blocks;
    const std::size_t count = kMaxCachedBytes / 1024 + 100;
    for (std::size_t i = 0; i < count; ++i) {
      blocks.push_back(allocate(1000, 16));
    }
    for (void* block : blocks) {
      release(block, 1000);
    }
    EXPECT_EQ(this_thread_stats().cached_bytes, kMaxCachedBytes);
  });
}

TEST(FramePool, GivesAStricterAlignmentFreshMemory) {
  on_new_thread([] {
    void* loose = allocate(100, 16);
    release(loose, 100);
    void* strict = allocate(100, 256);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(strict) % 256, 0U);
    release(strict, 100);  // now on the list too, and usable at the usual alignment
    EXPECT_EQ(allocate(100, 16), strict);
    EXPECT_EQ(allocate(100, 16), loose);
    release(strict, 100);
    release(loose, 100);
  });
}

TEST(FramePool, AFrameFreedOnAnotherThreadJoinsThatThreadsLists) {
  void* frame = nullptr;
  on_new_thread([&] { frame = allocate(500, 16); });
  on_new_thread([&] {
    release(allocate(500, 16), 500);  // this thread pools from its first frame on
    release(frame, 500);
    EXPECT_EQ(this_thread_stats().cached_bytes, 2 * 512U);
    EXPECT_EQ(allocate(500, 16), frame);
    release(frame, 500);
  });
}

boost::asio::awaitable<int> nested(int value) {
  co_return value + 1;
}

boost::asio::awaitable<void> outer(int& result) {
  result = co_await nested(1);
  result = co_await nested(result);
}

// The forced include is in effect: Asio's coroutine frames come from the pool, and a frame freed
// when its coroutine ends serves the next one.
TEST(FramePool, ServesAsioCoroutineFrames) {
  on_new_thread([] {
    boost::asio::io_context io;
    int result = 0;
    boost::asio::co_spawn(io, outer(result), boost::asio::detached);
    io.run();
    EXPECT_EQ(result, 3);
    const Stats stats = this_thread_stats();
    EXPECT_GE(stats.allocations, 3U);  // outer and each nested()
    EXPECT_GE(stats.reused, 1U);       // the second nested() in the first one's block
  });
}

}  // namespace
}  // namespace infergate::frame_pool
